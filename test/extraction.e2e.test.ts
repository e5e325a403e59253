/**
 * Extraction tools through HTTP, on the real PDF -> Markdown engine: per-file rows and charges,
 * options, the free trial (used, single file, given back on failure), ownership, 1-hour results.
 */
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClock, authHeaders, getJson, startServer, type TestServer } from './helpers.js';

async function pdfWith(heading: string, body: string): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([595, 842]);
  page.drawText(heading, { font: await doc.embedFont(StandardFonts.HelveticaBold), size: 24, x: 72, y: 760 });
  page.drawText(body, { font: await doc.embedFont(StandardFonts.Helvetica), size: 11, x: 72, y: 720 });
  return Buffer.from(await doc.save());
}

async function submit(
  url: string,
  tool: string,
  key: string,
  files: Array<{ name: string; data: Buffer }>,
  fields: Record<string, string> = {},
) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  for (const f of files) form.append('files', new Blob([new Uint8Array(f.data)]), f.name);
  const res = await fetch(`${url}/api/${tool}`, { method: 'POST', body: form, headers: authHeaders(key) });
  return { status: res.status, body: (await res.json()) as any };
}

async function waitForRows(url: string, key: string, statusUrl: string) {
  for (let i = 0; i < 300; i++) {
    const { status, body } = await getJson(`${url}${statusUrl}`, key);
    if (status !== 200) throw new Error(`poll answered ${status}: ${JSON.stringify(body)}`);
    if (body.done) return body;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('extraction did not finish');
}

describe('extraction tools', () => {
  let server: TestServer;
  const clock = new TestClock();
  let report: Buffer;
  let memo: Buffer;

  beforeAll(async () => {
    server = await startServer({ clock });
    report = await pdfWith('Quarterly Report', 'Revenue grew in every region this quarter.');
    memo = await pdfWith('Team Memo', 'The office is closed on Friday.');
  });
  afterAll(() => server.close());

  it('returns one row per file, charged per file, with rejected files listed', async () => {
    const key = await server.createKey('pro');
    const res = await submit(server.url, 'pdf-to-markdown', key, [
      { name: 'report.pdf', data: report },
      { name: 'notes.txt', data: Buffer.from('plain text') },
      { name: 'memo.pdf', data: memo },
    ]);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      batchId: expect.any(String),
      total: 2,
      statusUrl: `/api/pdf-to-markdown/${res.body.batchId}`,
      errors: [{ filename: 'notes.txt', error: 'PDF to Markdown does not read .txt files' }],
    });
    expect((await getJson(`${server.url}/api/v1/credits`, key)).body.creditsUsed).toBe(20);

    const poll = await waitForRows(server.url, key, res.body.statusUrl);
    expect(poll).toMatchObject({ done: true, total: 2, completed: 2, failed: 0 });
    expect(poll.totalHits).toBeUndefined();
    const [first, second] = poll.rows;
    expect(first).toMatchObject({ filename: 'report.pdf', status: 'completed', pages: 1 });
    expect(first.markdown).toBe(
      '<!-- page 1 -->\n\n# Quarterly Report\n\nRevenue grew in every region this quarter.\n',
    );
    expect(first.stats).toEqual({ headings: 1, tables: 0, words: 9, running_lines_stripped: 0, ocr_pages: 0 });
    expect(second).toMatchObject({ filename: 'memo.pdf', status: 'completed' });
    expect(second.markdown).toContain('# Team Memo');
  });

  it('searches files literally and sums the hits', async () => {
    const key = await server.createKey('pro');
    const res = await submit(
      server.url,
      'file-search',
      key,
      [
        { name: 'notes.txt', data: Buffer.from('Invoice 42 is paid.\nSee invoice 43; INVOICE 44 is late.\n') },
        { name: 'locked.pdf', data: Buffer.from('%PDF-1.7\n%garbage') },
        { name: 'report.pdf', data: report },
      ],
      { query: 'invoice', wholeWord: 'true' },
    );
    expect(res.status).toBe(200);
    const poll = await waitForRows(server.url, key, res.body.statusUrl);
    expect(poll).toMatchObject({ done: true, total: 3, completed: 3, failed: 0, totalHits: 3 });
    const [notes, locked, other] = poll.rows;
    expect(notes).toMatchObject({
      filename: 'notes.txt',
      status: 'completed',
      kind: 'text',
      count: 3,
      truncated: false,
      error: null,
    });
    for (const match of notes.matches)
      expect(match.snippet.substr(match.offset, match.length).toLowerCase()).toBe('invoice');
    expect(notes.matches[1].location).toBe('line 2');
    // Count 0 with an error: the file was not searched (spec).
    expect(locked).toMatchObject({ filename: 'locked.pdf', status: 'completed', count: 0, error: expect.any(String) });
    expect(other).toMatchObject({ count: 0, error: null });
    const missing = await submit(server.url, 'file-search', key, [{ name: 'notes.txt', data: Buffer.from('x') }]);
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatch(/query/);
  });

  it('parses a CV into fields with confidences', async () => {
    const key = await server.createKey('pro');
    const doc = await PDFDocument.create();
    const page = doc.addPage([595, 842]);
    const font = await doc.embedFont(StandardFonts.Helvetica);
    const lines = [
      'Jane Doe',
      'jane.doe@example.com | +44 20 7946 0958 | London, United Kingdom',
      'linkedin.com/in/janedoe',
      '',
      'Experience',
      'Senior Engineer at Acme Ltd',
      '2015 - 2020',
      '',
      'Skills',
      'TypeScript, Docker, PostgreSQL',
    ];
    for (const [i, line] of lines.entries())
      page.drawText(line, { font, size: i === 0 ? 20 : 11, x: 72, y: 770 - i * 18 });
    const res = await submit(server.url, 'parse-cv', key, [{ name: 'jane.pdf', data: Buffer.from(await doc.save()) }]);
    expect(res.status).toBe(200);
    const [row] = (await waitForRows(server.url, key, res.body.statusUrl)).rows;
    expect(row).toMatchObject({
      filename: 'jane.pdf',
      status: 'completed',
      name: 'Jane Doe',
      email: 'jane.doe@example.com',
      linkedin: 'https://www.linkedin.com/in/janedoe',
      title: 'Senior Engineer',
      employer: 'Acme Ltd',
      years_exp: 5,
    });
    expect(row.phone.replace(/\D/g, '')).toBe('442079460958');
    expect(row.skills).toEqual(expect.arrayContaining(['TypeScript', 'Docker', 'PostgreSQL']));
    expect(row.confidence.email).toBeGreaterThanOrEqual(0.8);
    for (const value of Object.values(row.confidence)) expect(value as number).toBeLessThanOrEqual(1);
  });

  it('applies the tool options and refuses bad ones', async () => {
    const key = await server.createKey('pro');
    const res = await submit(server.url, 'pdf-to-markdown', key, [{ name: 'report.pdf', data: report }], {
      pageBreaks: 'false',
    });
    const poll = await waitForRows(server.url, key, res.body.statusUrl);
    expect(poll.rows[0].markdown).not.toContain('<!-- page');
    const bad = await submit(server.url, 'pdf-to-markdown', key, [{ name: 'report.pdf', data: report }], {
      pageBreaks: 'maybe',
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('pageBreaks must be true or false');
    expect(
      (await submit(server.url, 'pdf-to-markdown', key, [{ name: 'report.pdf', data: report }], { colour: 'red' }))
        .status,
    ).toBe(400);
  });

  it('gives a Free key one single-file try per tool, free of charge', async () => {
    const key = await server.createKey('free');
    const several = await submit(server.url, 'pdf-to-markdown', key, [
      { name: 'a.pdf', data: report },
      { name: 'b.pdf', data: memo },
    ]);
    expect(several).toEqual({ status: 403, body: { error: expect.any(String), code: 'trial_single_file' } });

    const trial = await submit(server.url, 'pdf-to-markdown', key, [{ name: 'a.pdf', data: report }]);
    expect(trial.status).toBe(200);
    expect((await waitForRows(server.url, key, trial.body.statusUrl)).completed).toBe(1);
    expect((await getJson(`${server.url}/api/v1/credits`, key)).body.creditsUsed).toBe(0);

    const again = await submit(server.url, 'pdf-to-markdown', key, [{ name: 'a.pdf', data: report }]);
    expect(again).toEqual({ status: 403, body: { error: expect.stringMatching(/free try/), code: 'trial_used' } });
  });

  it('gives the free try back when its job fails', async () => {
    const key = await server.createKey('free');
    const broken = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(200, 0x20)]);
    const failing = await submit(server.url, 'pdf-to-markdown', key, [{ name: 'broken.pdf', data: broken }]);
    expect(failing.status).toBe(200);
    const poll = await waitForRows(server.url, key, failing.body.statusUrl);
    expect(poll).toMatchObject({ done: true, completed: 0, failed: 1 });
    expect(poll.rows[0]).toEqual({ filename: 'broken.pdf', status: 'failed', error: expect.any(String) });
    const retry = await submit(server.url, 'pdf-to-markdown', key, [{ name: 'a.pdf', data: report }]);
    expect(retry.status).toBe(200);
    await waitForRows(server.url, key, retry.body.statusUrl);
  });

  it('keeps results private and for one hour only', async () => {
    const key = await server.createKey('pro');
    const res = await submit(server.url, 'pdf-to-markdown', key, [{ name: 'a.pdf', data: report }]);
    await waitForRows(server.url, key, res.body.statusUrl);
    const other = await server.createKey('pro');
    expect((await getJson(`${server.url}${res.body.statusUrl}`, other)).status).toBe(403);
    expect((await getJson(`${server.url}/api/pdf-to-markdown/nope`, key)).status).toBe(404);
    expect((await getJson(`${server.url}/api/parse-cv/${res.body.batchId}`, key)).status).toBe(404);
    clock.advance(59 * 60_000);
    try {
      expect((await getJson(`${server.url}${res.body.statusUrl}`, key)).status).toBe(200);
      clock.advance(60_000);
      expect((await getJson(`${server.url}${res.body.statusUrl}`, key)).status).toBe(404);
      // The next purge (every minute) deletes the rows' content.
      clock.advance(60_000);
      await server.server.runtime.services.retention.purge();
      const job = (await server.server.runtime.store.jobs.jobs.listByBatch(res.body.batchId))[0]!;
      expect(job.result).toBeNull();
    } finally {
      clock.advance(-61 * 60_000);
    }
  });

  it('gates transcription at Business (test/transcribe.e2e.test.ts runs it)', async () => {
    const pro = await server.createKey('pro');
    const gated = await submit(server.url, 'transcribe', pro, [{ name: 'a.mp3', data: Buffer.from('ID3') }]);
    expect(gated).toEqual({
      status: 403,
      body: { error: 'Transcription requires the Business plan or higher', code: 'plan_required' },
    });
  });
});
