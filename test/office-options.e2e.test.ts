/**
 * office-convert on real Word, Excel and PowerPoint files (Apache POI's test documents, saved by
 * Microsoft Office: test/fixtures/office/README.md) over HTTP: every kind of content that used to crash
 * the LibreOffice pool converts, and each office option is checked on the output (page size, page count,
 * form fields, PDF/UA identification, metadata, a decrypted document's text). REST form fields throughout, plus
 * GraphQL, tRPC and a pipeline step carrying the same options.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTransmuteClient } from '../apps/server/trpc/client.js';
import { runProcess } from '../core/engines/process.js';
import { officePlugins } from '../plugins/office/index.js';
import { pdfPlugins } from '../plugins/pdf/index.js';
import {
  authHeaders,
  convertAndDownload,
  download,
  startServer,
  submitConvert,
  waitForJob,
  type TestServer,
} from './helpers.js';

const FIXTURES = path.join(import.meta.dirname, 'fixtures/office');
const fixture = (name: string) => path.join(FIXTURES, name);

const text = async (pdf: string) =>
  (await runProcess('pdftotext', ['-enc', 'UTF-8', pdf, '-'], { timeoutMs: 20_000 })).stdout;
const info = async (pdf: string) => (await runProcess('pdfinfo', [pdf], { timeoutMs: 20_000 })).stdout;
const pageCount = async (pdf: string) => Number(/Pages:\s+(\d+)/.exec(await info(pdf))?.[1]);
/** The PDF's objects uncompressed, to read its annotations, form fields and XMP. */
const objects = async (pdf: string) =>
  (await runProcess('qpdf', ['--qdf', '--object-streams=disable', pdf, '-'], { timeoutMs: 20_000 })).stdout;
const words = (s: string) => s.replace(/\s+/g, ' ');
/** The /Contents strings of a PDF's annotations (UTF-16BE hex, as LibreOffice writes them, or literal). */
const annotationTexts = (raw: string) =>
  [...raw.matchAll(/\/Contents\s*(?:<([0-9A-Fa-f\s]*)>|\(([^)]*)\))/g)].map(([, hex, literal]) => {
    if (literal !== undefined) return literal;
    const bytes = Buffer.from(hex!.replace(/\s+/g, ''), 'hex');
    return bytes[0] === 0xfe && bytes[1] === 0xff
      ? bytes.subarray(2).swap16().toString('utf16le')
      : bytes.toString('latin1');
  });

describe('office files and options over HTTP', () => {
  let server: TestServer;
  let key: string;
  let dir: string;
  const convert = async (name: string, fields: Record<string, string>) =>
    (await convertAndDownload(server.url, key, fixture(name), { to: 'pdf', ...fields }, 120_000)).outputPath;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'office-options-'));
    server = await startServer({ plugins: [...officePlugins, ...pdfPlugins] });
    key = await server.createKey('business');
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  describe('Word content that crashed the pool converts', () => {
    it.each([
      ['comments.docx', 'this is a comment paragraph'],
      ['tracked-changes.docx', 'This is a test.'],
      ['fields.docx', '16 June 2010'],
      ['content-controls.docx', 'Content control within a paragraph is here'],
      ['text-boxes.docx', 'Getting the perfect job might be challenging'],
      ['footnotes.docx', '1 snoska'],
    ])(
      '%s',
      async (name, expected) => {
        const pdf = await convert(name, {});
        expect(words(await text(pdf))).toContain(expected);
      },
      180_000,
    );
  });

  it('comments: none by default, margin gives PDF comment annotations holding their text', async () => {
    const plain = await objects(await convert('comments.docx', {}));
    expect(plain).not.toMatch(/\/Subtype \/Text/);
    const margin = await objects(await convert('comments.docx', { comments: 'margin' }));
    expect(margin).toMatch(/\/Subtype \/Text/);
    expect(annotationTexts(margin).join(' ')).toContain('comment content');
  }, 180_000);

  it('trackedChanges: final (default) drops deleted text, markup keeps it', async () => {
    const final = words(await text(await convert('tracked-changes.docx', {})));
    expect(final).toContain('one word is deleted');
    expect(final).not.toContain('This is another Test.');
    expect(final).not.toContain('where only one word');
    const markup = words(await text(await convert('tracked-changes.docx', { trackedChanges: 'markup' })));
    expect(markup).toContain('This is another Test.');
  }, 180_000);

  it('landscape turns the pages: width above height', async () => {
    const size = (s: string) => /Page size:\s+([\d.]+) x ([\d.]+)/.exec(s)!.slice(1).map(Number);
    const [w1, h1] = size(await info(await convert('footnotes.docx', {})));
    expect(w1).toBeLessThan(h1!);
    const [w2, h2] = size(await info(await convert('footnotes.docx', { landscape: 'true' })));
    expect(w2).toBeGreaterThan(h2!);
  }, 180_000);

  it('pageRanges keeps the pages asked for', async () => {
    const all = await pageCount(await convert('hidden-slides.pptx', {}));
    expect(all).toBeGreaterThan(4);
    expect(await pageCount(await convert('hidden-slides.pptx', { pageRanges: '2-3' }))).toBe(2);
  }, 180_000);

  it('exportHiddenSlides adds the 2 hidden slides of the 48-slide deck', async () => {
    const shown = await pageCount(await convert('hidden-slides.pptx', {}));
    expect(shown).toBe(46);
    expect(await pageCount(await convert('hidden-slides.pptx', { exportHiddenSlides: 'true' }))).toBe(48);
  }, 180_000);

  it('singlePageSheets puts each sheet on one page', async () => {
    // One worksheet that prints on 10 pages.
    expect(await pageCount(await convert('sheet.xlsx', {}))).toBe(10);
    expect(await pageCount(await convert('sheet.xlsx', { singlePageSheets: 'true' }))).toBe(1);
  }, 180_000);

  it('exportFormFields: Excel form controls become PDF form fields by default, plain drawing when false', async () => {
    const withFields = await objects(await convert('forms.xlsx', {}));
    expect(withFields).toMatch(/\/AcroForm/);
    expect(withFields.match(/\/FT \//g)?.length).toBe(40);
    const without = await objects(await convert('forms.xlsx', { exportFormFields: 'false' }));
    expect(without).not.toMatch(/\/FT \//);
  }, 180_000);

  it('flatten draws the form fields into the pages: no field or widget is left', async () => {
    const flat = await objects(await convert('forms.xlsx', { flatten: 'true' }));
    expect(flat).not.toMatch(/\/FT \//);
    expect(flat).not.toMatch(/\/Subtype \/Widget/);
  }, 180_000);

  it('image options: maxImageResolution downsamples, quality shrinks, losslessImageCompression drops' +
    ' JPEG', async () => {
    /** pdfimages -list rows: width, height, encoding. */
    const images = async (pdf: string) =>
      (await runProcess('pdfimages', ['-list', pdf], { timeoutMs: 20_000 })).stdout
        .split('\n')
        .slice(2)
        .map((line) => line.trim().split(/\s+/))
        .filter((cols) => cols[2] === 'image')
        .map((cols) => ({ width: Number(cols[3]), encoding: cols[8] }));
    const full = await convert('images.pptx', {});
    const fullImages = await images(full);
    expect(fullImages[0]).toEqual({ width: 1600, encoding: 'jpeg' });
    const small = await convert('images.pptx', { quality: '10', maxImageResolution: '75' });
    expect((await images(small))[0]!.width).toBeLessThan(1600);
    expect((await readFile(small)).length).toBeLessThan((await readFile(full)).length);
    const lossless = await images(await convert('images.pptx', { losslessImageCompression: 'true' }));
    expect(lossless[0]!.width).toBe(1600);
    expect(lossless[0]!.encoding).not.toBe('jpeg');
  }, 180_000);

  it('pdfua: tagged, with pdfuaid:part 1 in the XMP; beside pdfa', async () => {
    const pdf = await convert('footnotes.docx', { pdfua: 'true', pdfa: '2b' });
    expect(await info(pdf)).toMatch(/Tagged:\s+yes/);
    const raw = await objects(pdf);
    expect(raw).toMatch(/<pdfuaid:part>1<\/pdfuaid:part>/);
    expect(raw).toMatch(/<pdfaid:part>2<\/pdfaid:part>/);
  }, 180_000);

  it('metadata reaches the Info dictionary', async () => {
    const metadata = {
      title: 'Quarterly Zebra Report',
      author: 'Ada Example',
      subject: 'Stripes',
      keywords: ['zebra', 'audit'],
    };
    const pdf = await convert('footnotes.docx', { metadata: JSON.stringify(metadata) });
    const got = await info(pdf);
    expect(got).toMatch(/Title:\s+Quarterly Zebra Report/);
    expect(got).toMatch(/Author:\s+Ada Example/);
    expect(got).toMatch(/Subject:\s+Stripes/);
    expect(got).toMatch(/Keywords:\s+zebra, ?audit/);
  }, 180_000);

  it('POST /api/pdf/merge takes office files beside a PDF, converted and merged in the order sent', async () => {
    const pdf = await convert('footnotes.docx', {});
    const form = new FormData();
    form.append('files', new Blob([await readFile(fixture('comments.docx'))]), 'comments.docx');
    form.append('files', new Blob([await readFile(pdf)]), 'footnotes.pdf');
    form.append('files', new Blob([await readFile(fixture('tracked-changes.docx'))]), 'tracked-changes.docx');
    const res = await fetch(`${server.url}/api/pdf/merge`, { method: 'POST', body: form, headers: authHeaders(key) });
    expect(res.status).toBe(200);
    const job = await waitForJob(server.url, key, ((await res.json()) as { jobId: string }).jobId, 120_000);
    expect(job.error ?? null).toBeNull();
    const merged = path.join(dir, 'merged.pdf');
    await writeFile(merged, (await download(job.downloadUrl!)).data);
    expect(await pageCount(merged)).toBe(3);
    const page = async (n: number) =>
      words(
        (await runProcess('pdftotext', ['-f', String(n), '-l', String(n), merged, '-'], { timeoutMs: 20_000 })).stdout,
      );
    expect(await page(1)).toContain('this is a comment paragraph');
    expect(await page(2)).toContain('Eto ochen prostoy');
    expect(await page(3)).toContain('This is a test.');
  }, 180_000);

  describe('encrypted documents', () => {
    it('a password-protected DOCX without password fails, naming the field', async () => {
      const submitted = await submitConvert(server.url, key, fixture('encrypted-solrcell.docx'), { to: 'pdf' });
      expect(submitted.status).toBe(200);
      const job = await waitForJob(server.url, key, submitted.body.jobId, 120_000);
      expect(job.status).toBe('failed');
      expect(job.error).toContain('the document is password-protected: send `password`');
    }, 180_000);

    it('the wrong password gets a clear error', async () => {
      const submitted = await submitConvert(server.url, key, fixture('encrypted-solrcell.docx'), {
        to: 'pdf',
        password: 'not-it',
      });
      const job = await waitForJob(server.url, key, submitted.body.jobId, 120_000);
      expect(job.status).toBe('failed');
      expect(job.error).toBe('The password is wrong: it does not open this document');
    }, 180_000);

    it('an encrypted ODT: refused without its password, wrong password refused, opened with the right' +
      ' one', async () => {
      const without = await submitConvert(server.url, key, fixture('encrypted-octopus.odt'), { to: 'pdf' });
      const refused = await waitForJob(server.url, key, without.body.jobId, 120_000);
      expect(refused.status).toBe('failed');
      expect(refused.error).toContain('the document is password-protected: send `password`');
      const wrong = await submitConvert(server.url, key, fixture('encrypted-octopus.odt'), {
        to: 'pdf',
        password: 'squid',
      });
      const wrongJob = await waitForJob(server.url, key, wrong.body.jobId, 120_000);
      expect(wrongJob.status).toBe('failed');
      expect(wrongJob.error).toBe('The password is wrong: it does not open this document');
      const pdf = await convert('encrypted-octopus.odt', { password: 'octopus' });
      expect(words(await text(pdf))).toContain('Eto ochen prostoy');
    }, 180_000);

    it('the right password opens a DOCX and an XLSX', async () => {
      const docx = words(await text(await convert('encrypted-solrcell.docx', { password: 'solrcell' })));
      expect(docx.length).toBeGreaterThan(20);
      const xlsx = await convert('encrypted-tika.xlsx', { password: 'tika' });
      expect(words(await text(xlsx)).length).toBeGreaterThan(5);
    }, 180_000);
  });
  describe('the same options on GraphQL, tRPC and in a pipeline', () => {
    const done = async (jobId: string) => {
      const job = await waitForJob(server.url, key, jobId, 120_000);
      expect(job.status, job.error).toBe('done');
      const pdf = path.join(dir, `${jobId}.pdf`);
      await writeFile(pdf, (await download(job.downloadUrl!)).data);
      return pdf;
    };

    it('GraphQL takes them typed: landscape and metadata', async () => {
      const form = new FormData();
      form.append(
        'operations',
        JSON.stringify({
          query:
            'mutation($file: Upload!, $options: ConvertOptions) { convert(file: $file, to: "pdf", options: $options) ' +
            '{ jobId } }',
          variables: {
            file: null,
            options: { officeConvert: { landscape: true, metadata: { title: 'Via GraphQL', keywords: ['typed'] } } },
          },
        }),
      );
      form.append('map', JSON.stringify({ 0: ['variables.file'] }));
      form.append('0', new Blob([await readFile(fixture('footnotes.docx'))]), 'footnotes.docx');
      const res = await fetch(`${server.url}/graphql`, { method: 'POST', body: form, headers: authHeaders(key) });
      const body = (await res.json()) as { data?: { convert: { jobId: string } }; errors?: unknown };
      expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
      const got = await info(await done(body.data!.convert.jobId));
      const [width, height] = /Page size:\s+([\d.]+) x ([\d.]+)/.exec(got)!.slice(1).map(Number);
      expect(width).toBeGreaterThan(height!);
      expect(got).toMatch(/Title:\s+Via GraphQL/);
    }, 180_000);

    it('tRPC takes them in its options JSON: pageRanges', async () => {
      const form = new FormData();
      form.append('to', 'pdf');
      form.append('options', JSON.stringify({ pageRanges: '2-3' }));
      form.append('file', new Blob([await readFile(fixture('hidden-slides.pptx'))]), 'hidden-slides.pptx');
      const accepted = await createTransmuteClient(server.url, key).convert.mutate(form);
      expect(await pageCount(await done(accepted.jobId))).toBe(2);
    }, 180_000);

    it('a pipeline step takes them: singlePageSheets', async () => {
      const form = new FormData();
      form.append('pipeline', JSON.stringify({ steps: [{ to: 'pdf', singlePageSheets: true }] }));
      form.append('file', new Blob([await readFile(fixture('sheet.xlsx'))]), 'sheet.xlsx');
      const res = await fetch(`${server.url}/api/v1/pipelines`, {
        method: 'POST',
        body: form,
        headers: authHeaders(key),
      });
      const accepted = (await res.json()) as { jobId: string };
      expect(res.status, JSON.stringify(accepted)).toBe(200);
      expect(await pageCount(await done(accepted.jobId))).toBe(1);
    }, 180_000);
  });
});
