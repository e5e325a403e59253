/**
 * The warm LibreOffice pool through HTTP: /readyz shows it, a DOCX -> PDF job runs in the warm
 * listener (the same pid before and after, its conversion counted), a listener killed in the middle
 * of a job is replaced and the job still completes, two files of the same name converted at once
 * keep their own contents, a legacy .doc CV is read by parse-cv through the same pool, and with OFFICE_POOL_SIZE=0 (the
 * benchmark's cold baseline) conversions still work with a cold soffice per file.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Plugin } from '../core/contract/index.js';
import type { OfficePoolStatus } from '../core/engines/execution/libreoffice-pool.js';
import { runProcess } from '../core/engines/process.js';
import { FULL_CV_ROW, CvFixtures } from '../plugins/cv/testing/fixtures.js';
import { cvPlugins } from '../plugins/cv/index.js';
import { officePlugins } from '../plugins/office/index.js';
import {
  authHeaders,
  convertAndDownload,
  getJson,
  startServer,
  submitConvert,
  waitForJob,
  type TestServer,
} from './helpers.js';

let dir: string;
const docx = { memo: '', long: '', walrus: '', heron: '' };

async function makeDocx(name: string, markdown: string): Promise<string> {
  const source = path.join(dir, `${name}.md`);
  await writeFile(source, markdown);
  const out = path.join(dir, name, 'report.docx');
  await mkdir(path.dirname(out), { recursive: true });
  await runProcess('pandoc', [source, '-o', out], { timeoutMs: 60_000 });
  return out;
}

async function office(server: TestServer): Promise<OfficePoolStatus> {
  return (await getJson(`${server.url}/readyz`, undefined)).body.office as OfficePoolStatus;
}

/** /readyz is polled often (a listener is busy for a second at most); authenticated routes gently. */
async function until(condition: () => Promise<boolean>, timeoutMs = 60_000, everyMs = 25): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

async function pdf(file: string): Promise<{ pages: number; text: string }> {
  const info = (await runProcess('pdfinfo', [file], { timeoutMs: 20_000 })).stdout;
  const text = (await runProcess('pdftotext', ['-enc', 'UTF-8', file, '-'], { timeoutMs: 30_000 })).stdout;
  return { pages: Number(/^Pages:\s+(\d+)/m.exec(info)?.[1]), text };
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'office-pool-e2e-'));
  docx.memo = await makeDocx('memo', '# Quarterly Memo\n\nThe otter audited the ledger.\n');
  docx.long = await makeDocx(
    'long',
    Array.from(
      { length: 5_000 },
      (_, i) => `Paragraph ${i} of a long report, with words enough to fill a line or two on its page.\n`,
    ).join('\n'),
  );
  docx.walrus = await makeDocx('walrus', '# Walrus\n\nThe walrus signed the lease.\n');
  docx.heron = await makeDocx('heron', '# Heron\n\nThe heron kept the minutes.\n');
}, 120_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

/**
 * office-convert with a deadline that fits a listener's kill, restart and a second conversion on a
 * loaded machine: a small DOCX's own is 20 s, and what the pool test checks is the recovery, not it.
 */
function withRoomForARestart(plugin: Plugin): Plugin {
  return plugin.id === 'office-convert' ? { ...plugin, limits: { ...plugin.limits, timeoutMs: 180_000 } } : plugin;
}

describe('office pool over HTTP', () => {
  let server: TestServer;
  let key: string;

  beforeAll(async () => {
    server = await startServer({
      plugins: [...officePlugins.map(withRoomForARestart), ...cvPlugins],
      env: { OFFICE_POOL_SIZE: '1', OFFICE_POOL_WARM: '1' },
    });
    key = await server.createKey('pro');
    await until(async () => (await office(server)).listeners[0]?.state === 'idle');
  }, 120_000);
  afterAll(async () => {
    await server?.close();
  });

  it('/readyz shows the warm pool', async () => {
    const { status, body } = await getJson(`${server.url}/readyz`, undefined);
    expect(status).toBe(200);
    expect(body.office).toMatchObject({ mode: 'pool', size: 1, listeners: [{ state: 'idle', conversions: 0 }] });
    expect(body.office.listeners[0].pid).toBeGreaterThan(0);
    expect(body.office.listeners[0].rssMb).toBeGreaterThan(0);
    expect(body.office.fallbackReason).toBeUndefined();
  });

  it('converts a one-page DOCX to PDF in the warm listener', async () => {
    const before = await office(server);
    const { data, outputPath } = await convertAndDownload(server.url, key, docx.memo, { to: 'pdf' });
    expect(data.subarray(0, 5).toString()).toBe('%PDF-');
    const { pages, text } = await pdf(outputPath);
    expect(pages).toBe(1);
    expect(text).toContain('Quarterly Memo');
    expect(text).toContain('The otter audited the ledger.');
    const after = await office(server);
    expect(after.conversions).toBe(before.conversions + 1);
    expect(after.coldFallbacks).toBe(0);
    // The same listener: no soffice was started for this job.
    expect(after.listeners[0]!.pid).toBe(before.listeners[0]!.pid);
  }, 60_000);

  it('a listener killed in the middle of a job: the job still completes, and the next one runs', async () => {
    const before = await office(server);
    const submitted = await submitConvert(server.url, key, docx.long, { to: 'pdf' });
    expect(submitted.status).toBe(200);
    await until(async () => (await office(server)).listeners[0]?.state === 'busy');
    process.kill(-before.listeners[0]!.pid!, 'SIGKILL');
    const job = await waitForJob(server.url, key, submitted.body.jobId, 120_000);
    expect(job.error ?? null).toBeNull();
    expect(job.status).toBe('done');
    const after = await office(server);
    expect(after.retried).toBe(before.retried + 1);
    expect(after.restarts).toBe(before.restarts + 1);
    expect(after.listeners[0]!.pid).not.toBe(before.listeners[0]!.pid);
    const { outputPath } = await convertAndDownload(server.url, key, docx.memo, { to: 'pdf' });
    expect((await pdf(outputPath)).text).toContain('The otter audited the ledger.');
  }, 180_000);

  it('two files of the same name converted at once keep their own contents', async () => {
    const [walrus, heron] = await Promise.all(
      [docx.walrus, docx.heron].map((file) => convertAndDownload(server.url, key, file, { to: 'pdf' })),
    );
    expect(walrus!.filename).toBe(heron!.filename);
    expect((await pdf(walrus!.outputPath)).text).toContain('The walrus signed the lease.');
    expect((await pdf(heron!.outputPath)).text).toContain('The heron kept the minutes.');
  }, 60_000);

  it('parse-cv reads a legacy .doc through the pool', async () => {
    const cvs = new CvFixtures();
    try {
      await cvs.make();
      const before = await office(server);
      const form = new FormData();
      form.append('files', new Blob([new Uint8Array(await readFile(cvs.get('full-doc').path))]), 'jane.doc');
      const res = await fetch(`${server.url}/api/parse-cv`, { method: 'POST', body: form, headers: authHeaders(key) });
      expect(res.status).toBe(200);
      const { statusUrl } = (await res.json()) as { statusUrl: string };
      let poll: { done: boolean; rows: Array<Record<string, unknown>> } = { done: false, rows: [] };
      await until(
        async () => {
          poll = (await getJson(`${server.url}${statusUrl}`, key)).body;
          return poll.done;
        },
        60_000,
        250,
      );
      expect(poll.rows[0]).toMatchObject({
        filename: 'jane.doc',
        status: 'completed',
        name: FULL_CV_ROW.name,
        email: FULL_CV_ROW.email,
      });
      expect((await office(server)).conversions).toBe(before.conversions + 1);
    } finally {
      await cvs.cleanup();
    }
  }, 120_000);
});

describe('office pool disabled (OFFICE_POOL_SIZE=0)', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer({ plugins: officePlugins, env: { OFFICE_POOL_SIZE: '0', OFFICE_POOL_WARM: '1' } });
  }, 60_000);
  afterAll(async () => {
    await server?.close();
  });

  it('converts with a cold soffice per file and says so in /readyz', async () => {
    const key = await server.createKey('pro');
    const { outputPath } = await convertAndDownload(server.url, key, docx.memo, { to: 'pdf' });
    expect((await pdf(outputPath)).text).toContain('The otter audited the ledger.');
    expect(await office(server)).toMatchObject({ mode: 'disabled', size: 0, listeners: [], conversions: 0 });
  }, 60_000);
});
