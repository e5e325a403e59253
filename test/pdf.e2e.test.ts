/**
 * The PDF tools through HTTP: every op once on POST /api/v1/convert (and merge on
 * POST /api/pdf/merge) with the downloaded output checked by content, the plan gate, option
 * validation, a wrong unlock password failing the job with its credits refunded, and a PDF past a
 * tool's page limit refused at submit (bounded work).
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runProcess } from '../core/engines/process.js';
import { pdfPlugins } from '../plugins/pdf/index.js';
import {
  FIXTURE_AUTHOR,
  FIXTURE_PASSWORD,
  JPEG_SIZE,
  PNG_SIZE,
  PdfFixtures,
  manyPagePdf,
  objectsJson,
  pageCount,
  pageRotations,
  pageTexts,
  pdfInfo,
  unzip,
} from '../plugins/pdf/testing/fixtures.js';
import {
  authHeaders,
  convertAndDownload,
  download,
  getJson,
  startServer,
  submitConvert,
  waitForJob,
  type TestServer,
} from './helpers.js';

const pages = (...numbers: number[]) => numbers.map((n) => `Page ${n}`);

describe('PDF tools over HTTP', () => {
  const fixtures = new PdfFixtures();
  let server: TestServer;
  let freeKey: string;

  beforeAll(async () => {
    [server] = await Promise.all([startServer({ plugins: pdfPlugins }), fixtures.make()]);
    freeKey = await server.createKey('free');
  }, 60_000);
  afterAll(async () => {
    await server.close();
    await fixtures.cleanup();
  });

  /** One op on a fixture with a Pro key of its own (every poll counts against the key's rate limit). */
  const run = async (fixture: Parameters<PdfFixtures['get']>[0], fields: Record<string, string>) => {
    const key = await server.createKey('pro');
    return (await convertAndDownload(server.url, key, fixtures.get(fixture).path, { to: 'pdf', ...fields })).outputPath;
  };

  it('runs every PDF op', async () => {
    const [rotated, split, extracted, deleted, protectedPdf, unlocked, compressed, text, images, repaired, cleaned] =
      await Promise.all([
        run('eight', { op: 'rotate-pdf', angle: '270' }),
        run('eight', { op: 'split-pdf', split: '{"mode":"ranges","ranges":"1-3,4,5-8"}' }),
        run('eight', { op: 'extract-pages', pages: '2, 6-7' }),
        run('eight', { op: 'delete-pages', pages: '1-6' }),
        run('three', { op: 'protect-pdf', password: 'http secret' }),
        run('encrypted', { op: 'unlock-pdf', password: FIXTURE_PASSWORD }),
        run('photo', { op: 'compress-pdf' }),
        run('eight', { op: 'pdf-to-text' }),
        run('images', { op: 'extract-images' }),
        run('scripted', { op: 'repair-pdf' }),
        run('eight', { op: 'clean-metadata' }),
      ]);

    expect(await pageRotations(rotated)).toEqual(Array(8).fill(270));

    expect(path.extname(split)).toBe('.zip');
    const parts = await unzip(split, `${split}.d`);
    expect(parts.map((p) => p.name)).toEqual(['eight-1-3.pdf', 'eight-4.pdf', 'eight-5-8.pdf']);
    expect(await Promise.all(parts.map((p) => pageCount(p.path)))).toEqual([3, 1, 4]);

    expect(await pageTexts(extracted)).toEqual(pages(2, 6, 7));
    expect(await pageTexts(deleted)).toEqual(pages(7, 8));

    await expect(pageCount(protectedPdf)).rejects.toThrow(/invalid password/);
    expect(
      (await runProcess('qpdf', ['--password=http secret', '--show-encryption', protectedPdf], { timeoutMs: 10_000 }))
        .stdout,
    ).toMatch(/^R = 6$/m);

    expect(await pageTexts(unlocked)).toEqual(pages(1, 2));

    expect((await readFile(compressed)).length).toBeLessThan((await readFile(fixtures.get('photo').path)).length);

    expect(path.extname(text)).toBe('.txt');
    expect(
      (await readFile(text, 'utf8'))
        .split('\f')
        .map((p) => p.trim())
        .filter(Boolean),
    ).toEqual(pages(1, 2, 3, 4, 5, 6, 7, 8));

    const extractedImages = await unzip(images, `${images}.d`);
    const dimensions = await Promise.all(
      extractedImages.map(async (i) =>
        sharp(i.path)
          .metadata()
          .then((m) => ({ width: m.width, height: m.height })),
      ),
    );
    expect(dimensions).toEqual(expect.arrayContaining([PNG_SIZE, JPEG_SIZE]));
    expect(dimensions).toHaveLength(2);

    expect(await objectsJson(repaired)).not.toMatch(/"\/(OpenAction|AA|JavaScript)"/);
    expect(await pageCount(repaired)).toBe(3);

    const info = await pdfInfo(cleaned);
    expect([info.Title, info.Author, info['Metadata Stream']]).toEqual([undefined, undefined, 'no']);
    expect((await readFile(cleaned)).includes(FIXTURE_AUTHOR)).toBe(false);
  });

  it('merges PDFs in the order sent on POST /api/pdf/merge', async () => {
    const key = await server.createKey('pro');
    const form = new FormData();
    for (const name of ['two', 'three'] as const)
      form.append('files', new Blob([await readFile(fixtures.get(name).path)]), `${name}.pdf`);
    const res = await fetch(`${server.url}/api/pdf/merge`, { method: 'POST', body: form, headers: authHeaders(key) });
    expect(res.status).toBe(200);
    const job = await waitForJob(server.url, key, ((await res.json()) as { jobId: string }).jobId);
    expect(job.status).toBe('done');
    const merged = await download(job.downloadUrl!);
    const file = path.join(fixtures.dir, 'merged-download.pdf');
    await writeFile(file, merged.data);
    expect(await pageTexts(file)).toEqual(['C Page 1', 'C Page 2', 'B Page 1', 'B Page 2', 'B Page 3']);
  });

  it('refuses a PDF op to a Free key with 403', async () => {
    const res = await submitConvert(server.url, freeKey, fixtures.get('eight').path, {
      to: 'pdf',
      op: 'rotate-pdf',
      angle: '90',
    });
    expect(res.status).toBe(403);
    expect(typeof res.body.error).toBe('string');
  });

  it('refuses missing and invalid fields with 400', async () => {
    const key = await server.createKey('pro');
    const submit = (fields: Record<string, string>) =>
      submitConvert(server.url, key, fixtures.get('eight').path, { to: 'pdf', ...fields });

    expect(await submit({ op: 'rotate-pdf' })).toMatchObject({
      status: 400,
      body: { error: 'Invalid angle: is required (90, 180 or 270)' },
    });
    expect(await submit({ op: 'rotate-pdf', angle: '45' })).toMatchObject({
      status: 400,
      body: { error: 'Invalid angle: must be 90, 180 or 270' },
    });
    expect(await submit({ op: 'split-pdf', split: '{mode: pages' })).toMatchObject({
      status: 400,
      body: { error: 'split must be a JSON string' },
    });
    expect(await submit({ op: 'split-pdf', split: '{"mode":"ranges","ranges":"1-3,x"}' })).toMatchObject({
      status: 400,
    });
    expect(await submit({ op: 'extract-pages' })).toMatchObject({ status: 400 });
    expect(await submit({ op: 'protect-pdf', password: 'x'.repeat(129) })).toMatchObject({
      status: 400,
      body: { error: 'Invalid password: must be 1 to 128 characters' },
    });
  });

  it("refuses a PDF past a tool's page limit at submit with a 400 naming it, and charges nothing", async () => {
    const key = await server.createKey('pro');
    const submit = async (pages: number, fields: Record<string, string>) => {
      const data = Buffer.from(await manyPagePdf(pages));
      expect(data.length).toBeLessThan(10_000);
      return submitConvert(server.url, key, { name: 'pages.pdf', data }, { to: 'pdf', ...fields });
    };
    expect(await submit(2_001, { op: 'compress-pdf', quality: '60' })).toMatchObject({
      status: 400,
      body: {
        error:
          "op 'compress-pdf' takes at most 2,000 pages per job; pages.pdf has 2,001 pages: split it first (op " +
          'split-pdf)',
      },
    });
    expect(await submit(10_001, { op: 'rotate-pdf', angle: '90' })).toMatchObject({
      status: 400,
      body: {
        error:
          "op 'rotate-pdf' takes at most 10,000 pages per job; pages.pdf has 10,001 pages: split it first (op " +
          'split-pdf)',
      },
    });
    expect((await getJson(`${server.url}/api/v1/credits`, key)).body.creditsUsed).toBe(0);
    expect((await getJson(`${server.url}/api/v1/history`, key)).body.total).toBe(0);
  });

  it('fails a wrong unlock password with "Wrong password" and refunds the credits', async () => {
    const key = await server.createKey('pro');
    const credits = async () => (await getJson(`${server.url}/api/v1/credits`, key)).body.creditsRemaining as number;
    const before = await credits();
    const accepted = await submitConvert(server.url, key, fixtures.get('encrypted').path, {
      to: 'pdf',
      op: 'unlock-pdf',
      password: 'not it',
    });
    expect(accepted.status).toBe(200);
    expect(await credits()).toBe(before - accepted.body.creditCost);
    const job = await waitForJob(server.url, key, accepted.body.jobId);
    expect(job).toMatchObject({ status: 'failed', error: 'Wrong password' });
    expect(await credits()).toBe(before);
  });
});
