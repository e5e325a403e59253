/**
 * The spec's money and privacy rules through HTTP: credits (cost, atomic charge, refund, 402,
 * overage, monthly reset), rate limits, size limits, history, signed URLs, retention, plan gates.
 */
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  SLOW_TEXT_PLUGIN,
  TestClock,
  authHeaders,
  download,
  getJson,
  startServer,
  submitConvert,
  waitForJob,
  type TestServer,
} from './helpers.js';

const text = (data = 'plan rules') => ({ name: 'doc.txt', data });
let png: Buffer;

async function credits(server: TestServer, key: string) {
  return (await getJson(`${server.url}/api/v1/credits`, key)).body;
}

async function signedUrl(server: TestServer, key: string, body: Record<string, unknown>) {
  const res = await fetch(`${server.url}/api/v1/signed-url`, {
    method: 'POST',
    headers: { ...authHeaders(key), 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

async function finishedJob(server: TestServer, key: string) {
  const accepted = await submitConvert(server.url, key, text(), { to: 'md', steps: '1' });
  expect(accepted.status).toBe(200);
  const job = await waitForJob(server.url, key, accepted.body.jobId);
  expect(job.status).toBe('done');
  return { jobId: accepted.body.jobId as string, job };
}

describe('plans, credits and privacy rules', () => {
  let server: TestServer;
  const clock = new TestClock(new Date('2026-11-22T10:00:00Z'));

  beforeAll(async () => {
    png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#ff0000' } })
      .png()
      .toBuffer();
    server = await startServer({ env: { PLUGINS: SLOW_TEXT_PLUGIN }, clock });
  });
  afterAll(() => server.close());

  describe('credits', () => {
    it('reports the balance exactly as the spec', async () => {
      const key = await server.createKey('pro');
      expect(await credits(server, key)).toEqual({
        plan: 'Pro',
        creditsIncluded: 3000,
        creditsUsed: 0,
        creditsRemaining: 3000,
        resetDate: '2026-12-01T00:00:00.000Z',
        overageEnabled: false,
        overageRatePer1000: 5,
        overageCredits: 0,
      });
    });

    it('charges by class at acceptance: image 1, document 3', async () => {
      const key = await server.createKey('free');
      const image = await submitConvert(server.url, key, { name: 'red.png', data: png }, { to: 'webp' });
      expect(image.body).toMatchObject({ creditCost: 1, creditsRemaining: 249 });
      const doc = await submitConvert(server.url, key, text(), { to: 'md', steps: '1' });
      expect(doc.body).toMatchObject({ creditCost: 3, creditsRemaining: 246 });
      expect((await credits(server, key)).creditsUsed).toBe(4);
      await waitForJob(server.url, key, doc.body.jobId);
    });

    it('never overspends under concurrent requests at the edge of the allowance', async () => {
      const { key, accountId } = await server.createAccount('free');
      await server.server.runtime.services.credits.setUsed(accountId, 245);
      const results = await Promise.all(
        Array.from({ length: 12 }, () =>
          submitConvert(server.url, key, { name: 'red.png', data: png }, { to: 'webp' }),
        ),
      );
      const accepted = results.filter((r) => r.status === 200);
      const refused = results.filter((r) => r.status === 402);
      expect(accepted).toHaveLength(5);
      expect(refused).toHaveLength(7);
      for (const r of refused) expect(r.body).toEqual({ error: 'Insufficient API credits' });
      expect(await credits(server, key)).toMatchObject({ creditsUsed: 250, creditsRemaining: 0 });
      // This key has spent most of its 30 requests a minute: poll with a second key of the same account.
      const { key: pollKey } = await server.server.runtime.services.accounts.createKey(accountId);
      for (const r of accepted) await waitForJob(server.url, pollKey, r.body.jobId);
    });

    it('refunds a job that fails', async () => {
      const key = await server.createKey('pro');
      // A PNG signature with nothing after it: accepted by sniffing, fails in the engine.
      const broken = Buffer.concat([png.subarray(0, 40), Buffer.alloc(20)]);
      const accepted = await submitConvert(server.url, key, { name: 'broken.png', data: broken }, { to: 'webp' });
      expect(accepted.status).toBe(200);
      const job = await waitForJob(server.url, key, accepted.body.jobId);
      expect(job.status).toBe('failed');
      expect(job.error).toEqual(expect.any(String));
      expect((await credits(server, key)).creditsUsed).toBe(0);
    });

    it('with overage on, accepts past the allowance and meters the excess', async () => {
      const { key, accountId } = await server.createAccount('free', { overageEnabled: true });
      await server.server.runtime.services.credits.setUsed(accountId, 249);
      const res = await submitConvert(server.url, key, text(), { to: 'md', steps: '1' });
      expect(res.status).toBe(200);
      expect(res.body.creditsRemaining).toBe(0);
      expect(await credits(server, key)).toMatchObject({
        overageEnabled: true,
        creditsUsed: 252,
        creditsRemaining: 0,
        overageCredits: 2,
      });
      await waitForJob(server.url, key, res.body.jobId);
    });

    it('resets on the 1st of the month at 00:00 UTC, even with nothing running at midnight', async () => {
      const { key, accountId } = await server.createAccount('free');
      clock.set('2026-11-30T23:59:00Z');
      try {
        await server.server.runtime.services.credits.setUsed(accountId, 250);
        expect((await submitConvert(server.url, key, text(), { to: 'md' })).status).toBe(402);
        clock.set('2026-12-01T00:00:01Z');
        expect(await credits(server, key)).toMatchObject({
          creditsUsed: 0,
          creditsRemaining: 250,
          resetDate: '2027-01-01T00:00:00.000Z',
        });
        const res = await submitConvert(server.url, key, text(), { to: 'md', steps: '1' });
        expect(res.status).toBe(200);
        await waitForJob(server.url, key, res.body.jobId);
      } finally {
        clock.set('2026-11-22T10:00:00Z');
      }
    });

    it('schedules the monthly close and the minutely purge in the queue', async () => {
      const { jobs } = await server.server.runtime.queue.agenda.queryJobs({});
      const byName = Object.fromEntries(jobs.map((j) => [j.name, j]));
      expect(byName['purge-expired']?.repeatInterval).toBe('1 minute');
      expect(byName['close-billing-period']?.repeatInterval).toBe('0 0 1 * *');
      const next = new Date(byName['close-billing-period']!.nextRunAt!);
      expect([next.getUTCDate(), next.getUTCHours(), next.getUTCMinutes()]).toEqual([1, 0, 0]);
    });
  });

  describe('rate limits', () => {
    it('answers 429 with Retry-After past the plan rate, and RateLimit headers always', async () => {
      const key = await server.createKey('free');
      const statuses: number[] = [];
      let last: Awaited<ReturnType<typeof getJson>> | undefined;
      for (let i = 0; i < 31; i++) {
        last = await getJson(`${server.url}/api/v1/credits`, key);
        statuses.push(last.status);
        if (i === 0) {
          expect(last.headers.get('ratelimit-limit')).toBe('30');
          expect(last.headers.get('ratelimit-remaining')).toBe('29');
        }
      }
      expect(statuses.slice(0, 30).every((s) => s === 200)).toBe(true);
      expect(last!.status).toBe(429);
      expect(last!.body.error).toMatch(/Rate limit/);
      expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(last!.headers.get('ratelimit-remaining')).toBe('0');
      // The next minute opens a new window.
      clock.advance(60_000);
      expect((await getJson(`${server.url}/api/v1/credits`, key)).status).toBe(200);
    });
  });

  describe('size limits', () => {
    it('stops a Free upload over 25 MB with 413 and keeps nothing of it', async () => {
      const key = await server.createKey('free');
      const big = Buffer.alloc(26_000_000, 0x41);
      const res = await submitConvert(server.url, key, { name: 'big.txt', data: big }, { to: 'md' });
      expect(res.status).toBe(413);
      expect(res.body.error).toMatch(/25 MB/);
      const uploads = path.join(server.dataDir, 'blobs', 'uploads');
      expect(existsSync(uploads) ? await readdir(uploads) : []).toEqual([]);
      expect((await credits(server, key)).creditsUsed).toBe(0);
    });
  });

  describe('history', () => {
    it('pages newest first, per key holder, with limits checked', async () => {
      const key = await server.createKey('pro');
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        clock.advance(1000);
        ids.push((await submitConvert(server.url, key, text(), { to: 'md', steps: '1' })).body.jobId);
      }
      const all = await getJson(`${server.url}/api/v1/history`, key);
      expect(all.body).toMatchObject({ total: 3, limit: 50, offset: 0, hasMore: false });
      expect(all.body.history.map((h: { jobId: string }) => h.jobId)).toEqual([...ids].reverse());
      expect(all.body.history[0]).toEqual({ time: expect.any(String), conv: 'TXT to MD', jobId: ids[2], viaApi: true });
      const page = await getJson(`${server.url}/api/v1/history?limit=1&offset=1`, key);
      expect(page.body).toMatchObject({ total: 3, limit: 1, offset: 1, hasMore: true });
      expect(page.body.history.map((h: { jobId: string }) => h.jobId)).toEqual([ids[1]]);
      for (const query of ['limit=0', 'limit=101', 'offset=-1', 'limit=abc']) {
        expect((await getJson(`${server.url}/api/v1/history?${query}`, key)).status).toBe(400);
      }
      const other = await server.createKey('pro');
      expect((await getJson(`${server.url}/api/v1/history`, other)).body.total).toBe(0);
      await Promise.all(ids.map((id) => waitForJob(server.url, key, id)));
    });
  });

  describe('signed URLs', () => {
    it('are for Business and up', async () => {
      const key = await server.createKey('pro');
      const { jobId } = await finishedJob(server, key);
      const res = await signedUrl(server, key, { jobId });
      expect(res.status).toBe(403);
      expect(res.body.error).toMatch(/Business/);
    });

    it('mint per spec: defaults, minimum, clamp, ownership', async () => {
      const key = await server.createKey('business');
      const { jobId } = await finishedJob(server, key);
      const minted = await signedUrl(server, key, { jobId });
      expect(minted.status).toBe(200);
      expect(minted.body).toEqual({
        url: expect.stringMatching(new RegExp(`^${server.url}/api/download/[A-Za-z0-9_-]{43}$`)),
        expiresIn: 86_400,
        expiresAt: new Date(clock.now().getTime() + 86_400_000).toISOString(),
        reusable: true,
      });
      expect((await signedUrl(server, key, { jobId, expirySeconds: 10 * 86_400 })).body.expiresIn).toBe(604_800);
      expect((await signedUrl(server, key, { jobId, expirySeconds: 59 })).status).toBe(400);
      const stranger = await server.createKey('business');
      const foreign = await signedUrl(server, stranger, { jobId });
      expect(foreign.status).toBe(404);
      const enterprise = await server.createKey('enterprise');
      const own = await finishedJob(server, enterprise);
      expect((await signedUrl(server, enterprise, { jobId: own.jobId })).body.expiresIn).toBe(7 * 86_400);
      expect(
        (await signedUrl(server, enterprise, { jobId: own.jobId, expirySeconds: 40 * 86_400 })).body.expiresIn,
      ).toBe(2_592_000);
    });

    it('a single-use URL is consumed by its first download', async () => {
      const key = await server.createKey('business');
      const { jobId } = await finishedJob(server, key);
      const { body } = await signedUrl(server, key, { jobId, reusable: false });
      expect(body.reusable).toBe(false);
      expect((await download(body.url)).status).toBe(200);
      expect((await download(body.url)).status).toBe(404);
    });

    it('keeps the output past the 1-hour purge until the URL expires, then answers 410', async () => {
      const key = await server.createKey('business');
      const { jobId, job } = await finishedJob(server, key);
      const { body } = await signedUrl(server, key, { jobId, expirySeconds: 3 * 3600 });
      const retention = server.server.runtime.services.retention;

      clock.advance(2 * 3600_000);
      try {
        await retention.purge();
        expect((await download(job.downloadUrl!)).status).toBe(404); // the 15-minute link is long gone
        const kept = await download(body.url);
        expect(kept.status).toBe(200);
        expect(kept.data.toString()).toContain('PLAN RULES');

        clock.advance(1.5 * 3600_000);
        await retention.purge();
        const gone = await download(body.url);
        expect(gone.status).toBe(410);
      } finally {
        clock.advance(-3.5 * 3600_000);
      }
    });
  });

  describe('retention', () => {
    it('deletes uploads and outputs within the hour, never before', async () => {
      const key = await server.createKey('pro');
      const { jobId } = await finishedJob(server, key);
      const record = (await server.server.runtime.store.jobs.jobs.get(jobId))!;
      const output = path.join(server.dataDir, 'blobs', record.output!.blobKey);
      // Uploads go as soon as the job finishes.
      expect(record.inputs).toEqual([]);
      expect(existsSync(output)).toBe(true);

      const retention = server.server.runtime.services.retention;
      clock.advance(58 * 60_000);
      try {
        await retention.purge();
        expect(existsSync(output)).toBe(true);
        clock.advance(60_000);
        await retention.purge();
        expect(existsSync(output)).toBe(false);
        const later = await getJson(`${server.url}/api/v1/jobs/${jobId}`, key);
        expect(later.body).toEqual({ status: 'done' });
      } finally {
        clock.advance(-59 * 60_000);
      }
    });
  });

  describe('plan gates', () => {
    it('refuse tool ops on Free and merge below Pro', async () => {
      const free = await server.createKey('free');
      const op = await submitConvert(server.url, free, { name: 'red.png', data: png }, { to: 'png', op: 'grayscale' });
      expect(op.status).toBe(403);
      expect(op.body.error).toBe('Tool operations require the Pro plan or higher');
      const form = new FormData();
      form.append('files', new Blob([new Uint8Array(png)]), 'a.pdf');
      form.append('files', new Blob([new Uint8Array(png)]), 'b.pdf');
      const merge = await fetch(`${server.url}/api/pdf/merge`, {
        method: 'POST',
        body: form,
        headers: authHeaders(free),
      });
      expect(merge.status).toBe(403);
      expect(((await merge.json()) as { error: string }).error).toBe('PDF merge requires the Pro plan or higher');
      expect((await credits(server, free)).creditsUsed).toBe(0);
    });
  });
});
