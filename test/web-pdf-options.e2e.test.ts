/**
 * The web plugins' PDF options over HTTP, each checked on the output: bookmarks from the headings (on by default for
 * Markdown, off for HTML and URLs), tagged PDFs, PDF/UA identification in XMP, metadata in the information dictionary
 * and XMP, the CSS page size, the emulated media type; and for URLs, a status in failOnHttpStatusCodes or an exception
 * thrown by the page failing the job with a clear error. REST form fields throughout, plus GraphQL, tRPC and a
 * pipeline step carrying the same options.
 */
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTransmuteClient } from '../apps/server/trpc/client.js';
import { runProcess } from '../core/engines/process.js';
import { pdfStructure } from '../core/engines/testing/pdf-structure.js';
import { webPlugins } from '../plugins/web/index.js';
import {
  authHeaders,
  convertAndDownload,
  download,
  startServer,
  submitConvert,
  waitForJob,
  type TestServer,
} from './helpers.js';

const pdftotext = async (file: string) => (await runProcess('pdftotext', [file, '-'], { timeoutMs: 20_000 })).stdout;
const pdfinfo = async (file: string) => (await runProcess('pdfinfo', [file], { timeoutMs: 20_000 })).stdout;

const MARKDOWN = [
  '# Annual report',
  '',
  'Opening words.',
  '',
  '## Revenue',
  '',
  'Grew by a tenth.',
  '',
  '### By region',
  '',
  'North first.',
  '',
  '## Outlook',
  '',
  'Calm seas.',
  '',
].join('\n');

const HTML_WITH_HEADINGS =
  '<!doctype html><html lang="en"><head><title>Field guide</title></head><body><h1>Birds</h1><p>Feathers.</p>' +
  '<h2>Owls</h2><p>Nocturnal.</p><h1>Fish</h1><p>Scales.</p></body></html>';

describe('web PDF options over HTTP', () => {
  let server: TestServer;
  let site: http.Server;
  let siteUrl: string;

  beforeAll(async () => {
    site = http.createServer((req, res) => {
      const page = (status: number, body: string) =>
        res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html>${body}`);
      if (req.url === '/') return page(200, '<title>Harbour</title><h1>Harbour timetable</h1><h2>Ferries</h2>');
      if (req.url === '/gone') return page(410, '<h1>This timetable was withdrawn</h1>');
      if (req.url === '/unavailable') return page(503, '<h1>Back soon</h1>');
      if (req.url === '/throws')
        return page(
          200,
          '<h1>Broken widget</h1><script>document.title = "x"; null.render(); </script>' +
            '<script>throw new RangeError("tide table out of range")</script>',
        );
      page(404, '<h1>No such page</h1>');
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    server = await startServer({ plugins: webPlugins, env: { IMPORT_ALLOW_PRIVATE: '1' } });
  }, 90_000);
  afterAll(async () => {
    await server?.close();
    site?.close();
  });

  /** One key per case: keys poll at a bounded rate. */
  const key = () => server.createKey('pro');

  async function convert(file: { name: string; data: string }, fields: Record<string, string>) {
    const { outputPath } = await convertAndDownload(server.url, await key(), file, { to: 'pdf', ...fields }, 120_000);
    return { path: outputPath, facts: await pdfStructure(await readFile(outputPath)) };
  }

  async function failure(file: { name: string; data: string }, fields: Record<string, string>) {
    const apiKey = await key();
    const submitted = await submitConvert(server.url, apiKey, file, { to: 'pdf', ...fields });
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(200);
    return waitForJob(server.url, apiKey, submitted.body.jobId, 120_000);
  }

  describe('outline (bookmarks)', () => {
    it('Markdown gets bookmarks from its headings by default, nested by level; outline=false leaves them ' +
      'out', async () => {
      const md = { name: 'report.md', data: MARKDOWN };
      const withOutline = await convert(md, {});
      expect(withOutline.facts.outline).toEqual([
        { depth: 1, title: 'Annual report' },
        { depth: 2, title: 'Revenue' },
        { depth: 3, title: 'By region' },
        { depth: 2, title: 'Outlook' },
      ]);
      expect(withOutline.facts.tagged).toBe(true);
      const without = await convert(md, { outline: 'false' });
      expect(without.facts.outline).toEqual([]);
      expect(without.facts.tagged).toBe(false);
      expect(await pdftotext(without.path)).toContain('Calm seas.');
    }, 240_000);

    it('HTML has no bookmarks by default; outline=true adds them', async () => {
      const html = { name: 'guide.html', data: HTML_WITH_HEADINGS };
      expect((await convert(html, {})).facts.outline).toEqual([]);
      expect((await convert(html, { outline: 'true' })).facts.outline).toEqual([
        { depth: 1, title: 'Birds' },
        { depth: 2, title: 'Owls' },
        { depth: 1, title: 'Fish' },
      ]);
    }, 240_000);

    it('a URL has no bookmarks by default; outline=true adds them', async () => {
      const url = { name: 'harbour.url', data: `${siteUrl}/` };
      expect((await convert(url, {})).facts.outline).toEqual([]);
      expect((await convert(url, { outline: 'true' })).facts.outline).toEqual([
        { depth: 1, title: 'Harbour timetable' },
        { depth: 2, title: 'Ferries' },
      ]);
    }, 240_000);
  });

  describe('tagged and PDF/UA', () => {
    it('tagged=true makes a structure tree without bookmarks; the default is untagged', async () => {
      const html = { name: 'guide.html', data: HTML_WITH_HEADINGS };
      const tagged = await convert(html, { tagged: 'true' });
      expect(tagged.facts.tagged).toBe(true);
      expect(tagged.facts.outline).toEqual([]);
      expect(tagged.facts.lang).toBe('en');
      expect((await convert(html, {})).facts.tagged).toBe(false);
    }, 240_000);

    it('pdfua=true: a tagged PDF identified as PDF/UA-1 in its XMP, its title shown by viewers', async () => {
      const { path, facts } = await convert({ name: 'guide.html', data: HTML_WITH_HEADINGS }, { pdfua: 'true' });
      // The rewritten file is sound, and poppler sees the tags and the XMP.
      expect((await runProcess('qpdf', ['--check', path], { timeoutMs: 20_000 })).stdout).toContain(
        'No syntax or stream encoding errors found',
      );
      expect(await pdfinfo(path)).toMatch(/Metadata Stream:\s+yes[\s\S]*Tagged:\s+yes/);
      expect(facts.tagged).toBe(true);
      expect(facts.xmp).toMatch(/<pdfuaid:part>1<\/pdfuaid:part>/);
      expect(facts.xmp).toContain('<rdf:li xml:lang="x-default">Field guide</rdf:li>');
      expect(facts.displayDocTitle).toBe(true);
      expect(facts.info.title).toBe('Field guide');
    }, 120_000);
  });

  it('metadata sets title, author, subject and keywords in the information dictionary and in XMP', async () => {
    const { path, facts } = await convert(
      { name: 'report.md', data: MARKDOWN },
      {
        metadata: JSON.stringify({
          title: 'Annual report 2026',
          author: 'Zoë Müller',
          subject: 'Figures for the board',
          keywords: ['annual', 'revenue'],
        }),
      },
    );
    const info = await pdfinfo(path);
    expect(info).toMatch(/Title:\s+Annual report 2026\n/);
    expect(info).toMatch(/Author:\s+Zoë Müller\n/);
    expect(info).toMatch(/Subject:\s+Figures for the board\n/);
    expect(info).toMatch(/Keywords:\s+annual, revenue\n/);
    expect(facts.xmp).toContain('<dc:creator><rdf:Seq><rdf:li>Zoë Müller</rdf:li></rdf:Seq></dc:creator>');
    expect(facts.xmp).toContain('<pdf:Keywords>annual, revenue</pdf:Keywords>');
    // Markdown keeps its default outline beside the metadata.
    expect(facts.outline.length).toBe(4);
  }, 120_000);

  it('refuses metadata with an unknown key, or that is not JSON, before any credit is spent', async () => {
    const apiKey = await key();
    const note = { name: 'note.html', data: '<p>x</p>' };
    const unknown = await submitConvert(server.url, apiKey, note, {
      to: 'pdf',
      metadata: JSON.stringify({ creator: 'me' }),
    });
    expect(unknown.status).toBe(400);
    expect(JSON.stringify(unknown.body)).toContain('metadata');
    const notJson = await submitConvert(server.url, apiKey, note, { to: 'pdf', metadata: 'title=x' });
    expect(notJson.status).toBe(400);
    expect(JSON.stringify(notJson.body)).toContain('metadata must be a JSON string');
  });

  it("preferCssPageSize: the document's @page size wins over paper", async () => {
    const html = {
      name: 'card.html',
      data: '<!doctype html><style>@page { size: 100mm 150mm; margin: 5mm }</style><p>Postcard</p>',
    };
    const pageSize = async (file: string) =>
      (/Page size:\s+([\d.]+) x ([\d.]+) pts/.exec(await pdfinfo(file)) ?? []).slice(1).map(Number);
    // 100 x 150 mm = 283.46 x 425.2 pt (Chromium rounds the page to whole CSS pixels).
    const [width, height] = await pageSize((await convert(html, { preferCssPageSize: 'true' })).path);
    expect(width).toBeCloseTo(283.46, -0.5);
    expect(height).toBeCloseTo(425.2, -0.5);
    // Without it, the paper asked for (A5: 419.5 x 595.3 pt).
    const [a5Width, a5Height] = await pageSize((await convert(html, { paper: 'A5' })).path);
    expect(a5Width).toBeCloseTo(419.5, -0.5);
    expect(a5Height).toBeCloseTo(595.3, -0.5);
  }, 240_000);

  it('emulatedMediaType: print rules by default, screen rules with screen', async () => {
    const html = {
      name: 'media.html',
      data:
        '<!doctype html><style>.print, .screen { display: none } @media print { .print { display: block } } ' +
        '@media screen { .screen { display: block } }</style><p class="print">Printer edition</p>' +
        '<p class="screen">Screen edition</p>',
    };
    const printed = await pdftotext((await convert(html, {})).path);
    expect(printed).toContain('Printer edition');
    expect(printed).not.toContain('Screen edition');
    const screen = await pdftotext((await convert(html, { emulatedMediaType: 'screen' })).path);
    expect(screen).toContain('Screen edition');
    expect(screen).not.toContain('Printer edition');
  }, 240_000);

  describe('URL rendering failures', () => {
    it("fails on a 4xx or 5xx answer by default, naming the status; [] renders the site's page", async () => {
      const missing = await failure({ name: 'missing.url', data: `${siteUrl}/missing` }, {});
      expect(missing).toMatchObject({ status: 'failed', error: expect.stringContaining('HTTP 404 Not Found') });
      expect(missing.error).toContain('failOnHttpStatusCodes');
      const rendered = await convert(
        { name: 'missing.url', data: `${siteUrl}/missing` },
        { failOnHttpStatusCodes: '[]' },
      );
      expect(await pdftotext(rendered.path)).toContain('No such page');
    }, 240_000);

    it('reads 499 as the class 400-499 and other codes as themselves', async () => {
      const gone = await failure({ name: 'gone.url', data: `${siteUrl}/gone` }, { failOnHttpStatusCodes: '[499]' });
      expect(gone).toMatchObject({ status: 'failed', error: expect.stringContaining('HTTP 410') });
      // 503 is not in [499, 404]: the page renders.
      const unavailable = await convert(
        { name: 'busy.url', data: `${siteUrl}/unavailable` },
        { failOnHttpStatusCodes: '[499, 404]' },
      );
      expect(await pdftotext(unavailable.path)).toContain('Back soon');
      const exact = await failure(
        { name: 'busy.url', data: `${siteUrl}/unavailable` },
        { failOnHttpStatusCodes: '[503]' },
      );
      expect(exact).toMatchObject({ status: 'failed', error: expect.stringContaining('HTTP 503') });
    }, 240_000);

    it('refuses a status code outside 100-599 before any credit is spent', async () => {
      const refused = await submitConvert(
        server.url,
        await key(),
        { name: 'a.url', data: `${siteUrl}/` },
        {
          to: 'pdf',
          failOnHttpStatusCodes: '[700]',
        },
      );
      expect(refused.status).toBe(400);
      expect(JSON.stringify(refused.body)).toContain('failOnHttpStatusCodes');
    });

    it('failOnConsoleExceptions fails a page whose script throws, naming the exception; without it the page ' +
      'renders', async () => {
      const page = { name: 'widget.url', data: `${siteUrl}/throws` };
      const failed = await failure(page, { failOnConsoleExceptions: 'true' });
      expect(failed).toMatchObject({ status: 'failed', error: expect.stringContaining('The page threw an exception') });
      expect(failed.error).toMatch(/TypeError: Cannot read properties of null/);
      expect(failed.error).toContain('(and 1 more)');
      expect(await pdftotext((await convert(page, {})).path)).toContain('Broken widget');
      // A screenshot of the page is held to the same options.
      const screenshot = await failure(page, { to: 'png', failOnConsoleExceptions: 'true' });
      expect(screenshot).toMatchObject({ status: 'failed', error: expect.stringContaining('TypeError') });
      const missing = await failure({ name: 'missing.url', data: `${siteUrl}/missing` }, { to: 'png' });
      expect(missing).toMatchObject({ status: 'failed', error: expect.stringContaining('HTTP 404') });
    }, 240_000);

    it('failOnConsoleExceptions applies to an HTML upload too', async () => {
      const failed = await failure(
        { name: 'script.html', data: '<p>Hello</p><script>throw new Error("chart data missing")</script>' },
        { failOnConsoleExceptions: 'true' },
      );
      expect(failed).toMatchObject({ status: 'failed', error: expect.stringContaining('Error: chart data missing') });
    }, 120_000);
  });

  describe('the same options on GraphQL, tRPC and in a pipeline', () => {
    const md = { name: 'report.md', data: MARKDOWN };

    it('GraphQL takes them typed (metadata an input object, keywords a list)', async () => {
      const apiKey = await key();
      const form = new FormData();
      form.append(
        'operations',
        JSON.stringify({
          query:
            'mutation($file: Upload!, $options: ConvertOptions) { convert(file: $file, to: "pdf", options: $options) ' +
            '{ jobId } }',
          variables: {
            file: null,
            options: {
              mdToPdf: { outline: false, pdfua: true, metadata: { title: 'Via GraphQL', keywords: ['typed'] } },
            },
          },
        }),
      );
      form.append('map', JSON.stringify({ 0: ['variables.file'] }));
      form.append('0', new Blob([md.data]), md.name);
      const res = await fetch(`${server.url}/graphql`, { method: 'POST', body: form, headers: authHeaders(apiKey) });
      const body = (await res.json()) as any;
      expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
      const job = await waitForJob(server.url, apiKey, body.data.convert.jobId, 120_000);
      expect(job.status, job.error).toBe('done');
      const facts = await pdfStructure((await download(job.downloadUrl!)).data);
      expect(facts.outline).toEqual([]);
      expect(facts.tagged).toBe(true);
      expect(facts.info).toMatchObject({ title: 'Via GraphQL', keywords: 'typed' });
      expect(facts.xmp).toContain('<pdfuaid:part>1</pdfuaid:part>');
    }, 120_000);

    it('tRPC takes them in its options JSON', async () => {
      const apiKey = await key();
      const form = new FormData();
      form.append('to', 'pdf');
      form.append('options', JSON.stringify({ metadata: { author: 'Via tRPC' }, outline: false }));
      form.append('file', new Blob([md.data]), md.name);
      const accepted = await createTransmuteClient(server.url, apiKey).convert.mutate(form);
      const job = await waitForJob(server.url, apiKey, accepted.jobId, 120_000);
      expect(job.status, job.error).toBe('done');
      const facts = await pdfStructure((await download(job.downloadUrl!)).data);
      expect(facts.info.author).toBe('Via tRPC');
      expect(facts.outline).toEqual([]);
    }, 120_000);

    it('a pipeline step takes them', async () => {
      const apiKey = await key();
      const form = new FormData();
      form.append(
        'pipeline',
        JSON.stringify({ steps: [{ to: 'pdf', metadata: { subject: 'Via a pipeline' }, tagged: true }] }),
      );
      form.append('file', new Blob([md.data]), md.name);
      const res = await fetch(`${server.url}/api/v1/pipelines`, {
        method: 'POST',
        body: form,
        headers: authHeaders(apiKey),
      });
      const accepted = (await res.json()) as any;
      expect(res.status, JSON.stringify(accepted)).toBe(200);
      const job = await waitForJob(server.url, apiKey, accepted.jobId, 120_000);
      expect(job.status, job.error).toBe('done');
      const facts = await pdfStructure((await download(job.downloadUrl!)).data);
      expect(facts.info.subject).toBe('Via a pipeline');
      expect(facts.outline.map((entry) => entry.title)).toContain('Revenue');
    }, 120_000);
  });
});
