/**
 * Passwords for protect-pdf/unlock-pdf are used transiently: never stored, never logged. A real
 * server process runs at trace level; afterwards its whole log output and every byte of its data
 * dir (SQLite database, WAL, queue rows, blobs) are searched for the password.
 */
import { spawn } from 'node:child_process';
import { readFile, readdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import {
  compiledApp,
  ROOT,
  TestClock,
  admin,
  download,
  freePort,
  getJson,
  spawnServer,
  startServer,
  submitConvert,
  waitForJob,
  waitUntil,
} from './helpers.js';

async function allFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
}

async function onePagePdf(): Promise<Buffer> {
  const doc = await PDFDocument.create();
  doc
    .addPage([200, 200])
    .drawText('secret page', { font: await doc.embedFont(StandardFonts.Helvetica), x: 20, y: 100 });
  return Buffer.from(await doc.save());
}

describe('privacy of passwords', () => {
  it('runs password jobs in the accepting process, even an API-only one (WORKERS=0)', {
    timeout: 120_000,
  }, async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'transmute-api-only-'));
    const { result } = await admin(dataDir, 'create-key', '--plan', 'pro');
    const server = await spawnServer({ DATA_DIR: dataDir, WORKERS: '0' });
    try {
      const accepted = await submitConvert(
        server.url,
        result.key,
        { name: 'a.pdf', data: await onePagePdf() },
        { to: 'pdf', op: 'protect-pdf', password: 'correct horse' },
      );
      expect(accepted.status).toBe(200);
      expect((await waitForJob(server.url, result.key, accepted.body.jobId)).status).toBe('done');
    } finally {
      await server.kill('SIGTERM');
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('keeps a protect-pdf password out of logs and storage', { timeout: 120_000 }, async () => {
    const password = `Zebra-${Date.now()}-Quokka`;
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'transmute-privacy-'));
    const pdf = await onePagePdf();

    const { result } = await admin(dataDir, 'create-key', '--plan', 'pro');
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const child = spawn(process.execPath, [await compiledApp('apps/server/main.js')], {
      cwd: ROOT,
      env: {
        ...process.env,
        DATA_DIR: dataDir,
        PORT: String(port),
        HOST: '127.0.0.1',
        PUBLIC_URL: url,
        LOG_LEVEL: 'trace',
        QUEUE_POLL_MS: '50',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let logs = '';
    child.stdout.on('data', (c) => (logs += c));
    child.stderr.on('data', (c) => (logs += c));
    try {
      // As spawnServer: a loaded machine may take most of a minute to start a server.
      await waitUntil(
        () => {
          if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}: ${logs.slice(-2000)}`);
          return fetch(`${url}/healthz`).then(
            (r) => r.ok,
            () => false,
          );
        },
        60_000,
        'the server to answer /healthz',
      );
      const accepted = await submitConvert(
        url,
        result.key,
        { name: 'private.pdf', data: pdf },
        { to: 'pdf', op: 'protect-pdf', password },
      );
      expect(accepted.status).toBe(200);
      const job = await waitForJob(url, result.key, accepted.body.jobId);
      expect(job.status).toBe('done');
      const protectedPdf = await download(job.downloadUrl!);
      expect(protectedPdf.data.subarray(0, 5).toString()).toBe('%PDF-');
      // A wrong password fails cleanly and is not echoed back either.
      const wrong = await submitConvert(
        url,
        result.key,
        { name: 'locked.pdf', data: protectedPdf.data },
        { to: 'pdf', op: 'unlock-pdf', password: `${password}-nope` },
      );
      const failed = await waitForJob(url, result.key, wrong.body.jobId);
      expect(failed).toEqual({ status: 'failed', error: 'Wrong password' });
    } finally {
      await new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      });
    }
    try {
      expect(logs).toMatch(/"level":(10|20)\b/); // verbose logging really was on
      expect(logs).not.toContain(password);
      for (const file of await allFiles(dataDir)) {
        expect((await readFile(file)).includes(password), `password found in ${file}`).toBe(false);
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe('recovery of password jobs', () => {
  it('leaves one that may still be running elsewhere, and fails an abandoned one with a refund', async () => {
    const clock = new TestClock();
    const server = await startServer({ clock });
    try {
      const { key, accountId } = await server.createAccount('pro');
      const { runner, credits } = server.server.runtime.services;
      const { store } = server.server.runtime;
      const account = (await store.accounts.accounts.get(accountId))!;
      await credits.charge(account, 10);
      const job = await store.jobs.jobs.create({
        id: 'orphan-protect-job',
        accountId,
        kind: 'tool',
        pluginId: 'protect-pdf',
        op: 'protect-pdf',
        inputFormat: 'pdf',
        target: 'pdf',
        options: {},
        inputs: [],
        creditCost: 10,
        creditPeriod: clock.now().toISOString().slice(0, 7),
        viaApi: true,
        createdAt: clock.now(),
        inputsExpireAt: new Date(clock.now().getTime() + 3600_000),
      });
      expect(await runner.triage(job)).toBe('leave');
      expect((await store.jobs.jobs.get(job.id))!.status).toBe('waiting');

      clock.advance(60 * 60_000);
      expect(await runner.triage(job)).toBe('leave');
      const status = await getJson(`${server.url}/api/v1/jobs/${job.id}`, key);
      expect(status.body).toEqual({
        status: 'failed',
        error: 'The job was interrupted, and its password is never stored; submit the job again',
      });
      expect((await getJson(`${server.url}/api/v1/credits`, key)).body.creditsUsed).toBe(0);
    } finally {
      await server.close();
    }
  });
});
