/**
 * The backbone through HTTP: auth, validation, the job life cycle, downloads, ownership,
 * the formats listing, health, the admin CLI, and a job surviving a killed server.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  SLOW_TEXT_PLUGIN,
  TestClock,
  admin,
  convertAndDownload,
  download,
  getJson,
  spawnServer,
  startServer,
  submitConvert,
  waitForJob,
  type TestServer,
} from './helpers.js';

const text = { name: 'notes.txt', data: 'hello transmute' };

describe('foundation over HTTP', () => {
  let server: TestServer;
  let key: string;
  const clock = new TestClock();

  beforeAll(async () => {
    server = await startServer({ env: { PLUGINS: SLOW_TEXT_PLUGIN }, clock });
    key = await server.createKey('pro');
  });
  afterAll(() => server.close());

  describe('authentication', () => {
    it('refuses a missing key with 401 {error}', async () => {
      const res = await getJson(`${server.url}/api/v1/credits`, undefined);
      expect(res.status).toBe(401);
      expect(res.body.error).toMatch(/API key/);
    });
    it('refuses an unknown or malformed key with 401', async () => {
      for (const bad of [`ck_live_${'A'.repeat(43)}`, 'nope', 'ck_live_short']) {
        const res = await getJson(`${server.url}/api/v1/credits`, bad);
        expect(res.status).toBe(401);
        expect(typeof res.body.error).toBe('string');
      }
    });
    it('refuses convert without a key before reading the upload', async () => {
      const res = await submitConvert(server.url, undefined, text, { to: 'md' });
      expect(res.status).toBe(401);
    });
  });

  describe('convert validation', () => {
    const cases: Array<[string, Parameters<typeof submitConvert>[2], Record<string, string>, RegExp]> = [
      ['missing to', text, {}, /Missing 'to'/],
      ['unsupported pair', text, { to: 'mp3' }, /Unsupported conversion: txt -> mp3/],
      ['unsupported input format', { name: 'x.xyz', data: 'abc' }, { to: 'pdf' }, /Unsupported format: xyz/],
      ['unknown op', text, { to: 'txt', op: 'shred' }, /Unknown op 'shred'/],
      ['unknown field', text, { to: 'md', colour: 'red' }, /Field 'colour' does not apply/],
      [
        'invalid option value',
        text,
        { to: 'md', steps: 'many' },
        /Invalid steps: must be a whole number in decimal digits/,
      ],
      ['out-of-range option', text, { to: 'md', steps: '1000' }, /Invalid steps/],
      [
        'content not matching its name',
        { name: 'photo.png', data: 'just text' },
        { to: 'webp' },
        /does not match its declared type/,
      ],
      ['empty file', { name: 'empty.txt', data: '' }, { to: 'md' }, /empty/],
    ];
    for (const [name, file, fields, message] of cases) {
      it(`400 for ${name}`, async () => {
        const res = await submitConvert(server.url, key, file, fields);
        expect(res.status).toBe(400);
        expect(res.body.error).toMatch(message);
      });
    }
    it('400 for a body that is not multipart', async () => {
      const res = await fetch(`${server.url}/api/v1/convert`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: '{"to":"md"}',
      });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: string }).error).toMatch(/multipart/);
    });
    it('400 for a request without a file', async () => {
      const form = new FormData();
      form.append('to', 'md');
      const res = await fetch(`${server.url}/api/v1/convert`, {
        method: 'POST',
        body: form,
        headers: { authorization: `Bearer ${key}` },
      });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: string }).error).toMatch(/Missing 'file'/);
    });
  });

  describe('job life cycle', () => {
    it('accepts, runs with progress, and serves the output for 15 minutes', async () => {
      // 3 s of work: progress is stored every 500 ms, and the polls of a loaded machine are slow to see a 1 s job's.
      const accepted = await submitConvert(server.url, key, text, { to: 'md', steps: '30' });
      expect(accepted.status).toBe(200);
      expect(accepted.body).toEqual({
        jobId: expect.any(String),
        status: 'queued',
        creditCost: 3,
        creditsRemaining: expect.any(Number),
        statusUrl: `/api/v1/jobs/${accepted.body.jobId}`,
      });
      const first = await getJson(`${server.url}${accepted.body.statusUrl}`, key);
      expect(['waiting', 'active']).toContain(first.body.status);
      expect(first.body.progress).toBeGreaterThanOrEqual(0);

      const seen = new Set<number>();
      let job: any;
      for (;;) {
        job = (await getJson(`${server.url}${accepted.body.statusUrl}`, key)).body;
        if (job.status === 'active') seen.add(job.progress);
        if (job.status === 'done' || job.status === 'failed') break;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(job).toEqual({
        status: 'done',
        downloadUrl: expect.stringMatching(new RegExp(`^${server.url}/api/download/[A-Za-z0-9_-]{43}$`)),
        expiresIn: 900,
      });
      expect([...seen].some((p) => p > 0 && p < 100)).toBe(true);

      const got = await download(job.downloadUrl);
      expect(got.status).toBe(200);
      expect(got.headers.get('content-type')).toBe('application/octet-stream');
      expect(got.headers.get('content-disposition')).toContain('filename="notes.md"');
      expect(got.data.toString()).toBe('# Converted\n\nHELLO TRANSMUTE\n');
      // Reusable within the window.
      expect((await download(job.downloadUrl)).status).toBe(200);

      clock.advance(15 * 60_000 + 1000);
      try {
        expect((await download(job.downloadUrl)).status).toBe(404);
        const later = await getJson(`${server.url}${accepted.body.statusUrl}`, key);
        expect(later.body).toEqual({ status: 'done' });
      } finally {
        clock.advance(-(15 * 60_000 + 1000));
      }
    });

    it('keeps jobs private: another key gets 404', async () => {
      const accepted = await submitConvert(server.url, key, text, { to: 'md', steps: '1' });
      const other = await server.createKey('pro');
      const res = await getJson(`${server.url}/api/v1/jobs/${accepted.body.jobId}`, other);
      expect(res.status).toBe(404);
      expect(res.body.error).toBe('Job not found');
      expect((await getJson(`${server.url}/api/v1/jobs/no-such-job`, key)).status).toBe(404);
      await waitForJob(server.url, key, accepted.body.jobId);
    });

    it('answers 400 for a malformed download token and 404 for an unknown one', async () => {
      const malformed = await download(`${server.url}/api/download/not-a-token`);
      expect(malformed.status).toBe(400);
      expect(JSON.parse(malformed.data.toString()).error).toMatch(/Invalid download token/);
      expect((await download(`${server.url}/api/download/${'x'.repeat(43)}`)).status).toBe(404);
    });

    it('names outputs safely', async () => {
      const { filename } = await convertAndDownload(
        server.url,
        key,
        { name: '../../etc/pa|ss wd.txt', data: 'x' },
        { to: 'md', steps: '1' },
      );
      expect(filename).toBe('pa_ss wd.md');
    });
  });

  describe('capabilities and health', () => {
    it('lists conversions and ops from the registry', async () => {
      const res = await getJson(`${server.url}/api/v1/formats`, key);
      expect(res.status).toBe(200);
      expect(res.body.conversions.txt).toContain('md');
      const op = res.body.operations.find((o: { pluginId: string }) => o.pluginId === 'test-slow-text');
      expect(op.options.properties.steps).toMatchObject({ type: 'integer', minimum: 1, maximum: 100, default: 20 });
    });
    it('reports health and readiness', async () => {
      expect((await getJson(`${server.url}/healthz`, undefined)).body).toEqual({ status: 'ok' });
      const ready = await getJson(`${server.url}/readyz`, undefined);
      expect(ready.body.checks).toEqual({ store: 'ok', queue: 'ok', disk: 'ok' });
      expect(ready.status).toBe(ready.body.unavailable.length ? 503 : 200);
    });
  });
});

// Each admin call starts the CLI under tsx: seconds apiece on a loaded machine, several calls per test.
describe('admin CLI', { timeout: 180_000 }, () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'transmute-cli-'));
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  it('creates, lists and revokes keys, and sets usage', async () => {
    const created = await admin(dataDir, 'create-key', '--plan', 'business', '--email', 'ops@example.com');
    expect(created.code).toBe(0);
    expect(created.result).toEqual({
      accountId: expect.stringMatching(/^acc_/),
      key: expect.stringMatching(/^ck_live_[A-Za-z0-9_-]{43}$/),
      plan: 'business',
    });

    const listed = await admin(dataDir, 'list-keys', '--account', created.result.accountId);
    expect(listed.result.keys).toEqual([
      { id: expect.stringMatching(/^key_/), prefix: created.result.key.slice(0, 12), createdAt: expect.any(String) },
    ]);
    expect(JSON.stringify(listed.result)).not.toContain(created.result.key);

    const usage = await admin(dataDir, 'set-usage', '--account', created.result.accountId, '--used', '100');
    expect(usage.result).toMatchObject({ creditsUsed: 100, creditsRemaining: 24_900 });

    expect((await admin(dataDir, 'revoke-key', '--key', created.result.key)).result).toEqual({ revoked: true });
    expect((await admin(dataDir, 'revoke-key', '--key', created.result.key)).code).toBe(1);
    expect((await admin(dataDir, 'create-key', '--plan', 'gold')).result.error).toMatch(/plan/);
  });

  it("sets an Enterprise account's own credits and rate, which the server then applies", async () => {
    const enterprise = await admin(dataDir, 'create-key', '--plan', 'enterprise');
    const accountId = enterprise.result.accountId;
    expect(
      (await admin(dataDir, 'set-limits', '--account', accountId, '--credits', '5000', '--rpm', '7000')).result,
    ).toEqual({ accountId, plan: 'enterprise', creditsIncluded: 5000, requestsPerMinute: 7000 });
    // A limit left out keeps its value.
    expect((await admin(dataDir, 'set-limits', '--account', accountId, '--rpm', '6000')).result).toMatchObject({
      creditsIncluded: 5000,
      requestsPerMinute: 6000,
    });
    expect((await admin(dataDir, 'set-limits', '--account', accountId)).result.error).toMatch(
      /--credits, --rpm or both/,
    );
    const pro = await admin(dataDir, 'create-key', '--plan', 'pro');
    const refused = await admin(dataDir, 'set-limits', '--account', pro.result.accountId, '--rpm', '9000');
    expect(refused.code).toBe(1);
    expect(refused.result.error).toMatch(/Custom limits are for Enterprise accounts/);

    const server = await startServer({ dataDir });
    try {
      const res = await fetch(`${server.url}/api/v1/credits`, {
        headers: { authorization: `Bearer ${enterprise.result.key}` },
      });
      expect(res.headers.get('ratelimit-limit')).toBe('6000');
      expect(await res.json()).toMatchObject({ creditsIncluded: 5000 });
    } finally {
      await server.close();
    }
  });
});

describe('durability', () => {
  it('finishes a job accepted before the server was killed', { timeout: 180_000 }, async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'transmute-restart-'));
    const env = { DATA_DIR: dataDir, PLUGINS: './test/fixtures/plugins/slow-text.ts', QUEUE_LOCK_MS: '5000' };
    try {
      const { result } = await admin(dataDir, 'create-key', '--plan', 'pro');
      let server = await spawnServer(env);
      const accepted = await submitConvert(
        server.url,
        result.key,
        { name: 'survivor.txt', data: 'still here' },
        { to: 'md', steps: '40' },
      );
      expect(accepted.status).toBe(200);
      for (;;) {
        const { body } = await getJson(`${server.url}/api/v1/jobs/${accepted.body.jobId}`, result.key);
        if (body.status === 'active' && body.progress > 0) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      await server.kill('SIGKILL');

      server = await spawnServer({ ...env, PORT: new URL(server.url).port });
      try {
        // Its lock lapses, a fresh sandbox process runs it again: a minute on a loaded machine.
        const job = await waitForJob(server.url, result.key, accepted.body.jobId, 60_000);
        expect(job.status).toBe('done');
        const got = await download(job.downloadUrl!);
        expect(got.data.toString()).toBe('# Converted\n\nSTILL HERE\n');
      } finally {
        await server.kill('SIGTERM');
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
