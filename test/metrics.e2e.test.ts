/**
 * Prometheus metrics with real parts: Debian's `prometheus` scrapes an API server (WORKERS=0,
 * METRICS_TOKEN) and a worker process (METRICS_PORT) while jobs run, one of them killed at its
 * deadline and one failing; its HTTP API shows the counters moved by the right amounts, and
 * `promtool check metrics` accepts both expositions. The dashboard and alert files load
 * (`promtool check rules`, a schema check of the dashboard JSON).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PDFDocument } from 'pdf-lib';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { officePlugins } from '../plugins/office/index.js';
import { docxText } from './fixtures/hostile.js';
import {
  compiledApp,
  ROOT,
  admin,
  convertAndDownload,
  freePort,
  spawnServer,
  startServer,
  submitConvert,
  waitForJob,
  type ChildServer,
} from './helpers.js';

const HOSTILE = path.join(ROOT, 'test/fixtures/plugins/hostile.ts');
const TOKEN = 'test-metrics-token-0123456789abcdef';
const STARTUP_MS = 60_000;

/** A child process that is stopped (with SIGTERM, then SIGKILL) at the end. */
async function stopChild(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = STARTUP_MS): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

function promtool(args: string[], input?: string): { status: number | null; output: string } {
  const result = spawnSync('promtool', args, { input, encoding: 'utf8' });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

async function scrape(url: string, token?: string): Promise<{ status: number; text: string }> {
  const res = await fetch(`${url}/metrics`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  return { status: res.status, text: await res.text() };
}

describe('Prometheus scrapes the API and a worker', () => {
  let dataDir: string;
  let api: ChildServer;
  let worker: ChildProcess | undefined;
  let workerMetricsUrl: string;
  let prometheus: ChildProcess | undefined;
  let prometheusUrl: string;
  let key: string;

  /** One instant-vector query: the sum of the values (0 when nothing matches). */
  async function query(promql: string): Promise<number> {
    const res = await fetch(`${prometheusUrl}/api/v1/query?query=${encodeURIComponent(promql)}`);
    const body = (await res.json()) as { status: string; data: { result: Array<{ value: [number, string] }> } };
    expect(body.status).toBe('success');
    return body.data.result.reduce((sum, r) => sum + Number(r.value[1]), 0);
  }

  /** Until Prometheus's latest scrape shows `expected` (scrapes run every second). */
  async function expectEventually(promql: string, expected: number | ((value: number) => boolean)): Promise<void> {
    const ok = typeof expected === 'number' ? (v: number) => v === expected : expected;
    let last = NaN;
    await waitFor(
      `${promql} to be ${expected}`,
      async () => {
        last = await query(promql);
        return ok(last) ? true : undefined;
      },
      30_000,
    ).catch(() => undefined);
    expect(last, promql).toSatisfy(ok);
  }

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'transmute-metrics-'));
    const common = {
      DATA_DIR: dataDir,
      PLUGINS: HOSTILE,
      QUEUE_POLL_MS: '50',
      METRICS_TOKEN: TOKEN,
      LOG_LEVEL: 'warn',
      OFFICE_POOL_WARM: '0',
    };
    api = await spawnServer({ ...common, WORKERS: '0' });
    const workerMetricsPort = await freePort();
    worker = spawn(process.execPath, [await compiledApp('apps/worker/main.js')], {
      cwd: ROOT,
      env: { ...process.env, ...common, WORKERS: '2', HOST: '127.0.0.1', METRICS_PORT: String(workerMetricsPort) },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    workerMetricsUrl = `http://127.0.0.1:${workerMetricsPort}`;
    await waitFor("the worker's /metrics", async () =>
      (await scrape(workerMetricsUrl, TOKEN)).status === 200 ? true : undefined,
    );

    const promDir = await mkdtemp(path.join(dataDir, 'prometheus-'));
    const promPort = await freePort();
    prometheusUrl = `http://127.0.0.1:${promPort}`;
    const target = (name: string, url: string) => `
  - job_name: ${name}
    scrape_interval: 1s
    scrape_timeout: 1s
    authorization:
      credentials: ${TOKEN}
    static_configs:
      - targets: ['${new URL(url).host}']`;
    await writeFile(
      path.join(promDir, 'prometheus.yml'),
      `global:\n  scrape_interval: ` +
        `1s\nscrape_configs:${target('transmute-api', api.url)}${target('transmute-worker', workerMetricsUrl)}\n`,
    );
    // Our own instance: a random port and a temporary storage dir (the Debian service is not used).
    prometheus = spawn(
      'prometheus',
      [
        `--config.file=${path.join(promDir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${path.join(promDir, 'data')}`,
        `--web.listen-address=127.0.0.1:${promPort}`,
        '--log.level=warn',
      ],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
    await waitFor('prometheus', async () => ((await fetch(`${prometheusUrl}/-/ready`)).ok ? true : undefined));
    key = (await admin(dataDir, 'create-key', '--plan', 'business')).result.key;
    await expectEventually('up{job=~"transmute-.*"}', 2);
  }, 180_000);

  afterAll(async () => {
    await stopChild(prometheus);
    await stopChild(worker);
    await api?.kill('SIGTERM');
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('counts accepted, finished, failed and killed jobs, the queue, the sandbox, uploads and credits', {
    timeout: 180_000,
  }, async () => {
    const blankPdf = Buffer.from(await (await PDFDocument.create()).addPage([100, 100]).doc.save());
    const submitted = await Promise.all([
      submitConvert(api.url, key, { name: 'a.csv', data: 'a,b\n1,2\n' }, { to: 'json' }),
      submitConvert(api.url, key, { name: 'b.csv', data: 'a,b\n3,4\n' }, { to: 'json' }),
      submitConvert(api.url, key, { name: 'blank.pdf', data: blankPdf }, { to: 'pdf', op: 'pdf-to-text' }),
      submitConvert(api.url, key, { name: 'spin.txt', data: 'x' }, { to: 'txt', op: 'test-spin' }),
    ]);
    for (const s of submitted) expect(s.status, JSON.stringify(s.body)).toBe(200);
    const jobs = await Promise.all(submitted.map((s) => waitForJob(api.url, key, s.body.jobId, 120_000)));
    expect(jobs.map((j) => j.status)).toEqual(['done', 'done', 'failed', 'failed']);
    expect(jobs[3]).toMatchObject({ error: 'Timed out after 2 s' });
    const charged = submitted.reduce((sum, s) => sum + s.body.creditCost, 0);

    // The API accepted them (and answered the uploads); the worker ran them.
    await expectEventually('transmute_jobs_accepted_total{job="transmute-api",plugin="data-convert"}', 2);
    await expectEventually('transmute_jobs_accepted_total{job="transmute-api",plugin="pdf-to-text"}', 1);
    await expectEventually('transmute_jobs_accepted_total{job="transmute-api",plugin="test-spin"}', 1);
    await expectEventually(
      'transmute_http_requests_total{job="transmute-api",route="/api/v1/convert",method="POST",status="200"}',
      4,
    );
    await expectEventually(
      'transmute_http_request_duration_seconds_count{job="transmute-api",route="/api/v1/convert",method="POST"}',
      4,
    );
    await expectEventually('transmute_credits_charged_total{job="transmute-api",plan="business"}', charged);
    await expectEventually('transmute_upload_bytes_total{job="transmute-api"}', (v) => v >= blankPdf.length + 16);
    await expectEventually(
      'transmute_jobs_finished_total{job="transmute-worker",plugin="data-convert",status="done"}',
      2,
    );
    await expectEventually('transmute_jobs_finished_total{job="transmute-worker",status="failed"}', 2);
    await expectEventually(
      'transmute_jobs_finished_total{job="transmute-worker",plugin="test-spin",status="failed"}',
      1,
    );
    await expectEventually('transmute_job_duration_seconds_count{job="transmute-worker",plugin="data-convert"}', 2);
    await expectEventually('transmute_job_wait_seconds_count{job="transmute-worker"}', 4);
    await expectEventually('transmute_sandbox_kills_total{job="transmute-worker",reason="deadline"}', 1);
    await expectEventually('transmute_sandbox_kills_total{job="transmute-worker",reason=~"memory|crash"}', 0);
    // The spin's duration is its 2 s deadline and the 1 s grace before the kill.
    await expectEventually(
      'transmute_job_duration_seconds_sum{job="transmute-worker",plugin="test-spin"}',
      (v) => v >= 2,
    );
    // Refunds of the two failures (API: none; the worker refunded them).
    await expectEventually(
      'transmute_credits_refunded_total{job="transmute-worker"}',
      submitted[2]!.body.creditCost + submitted[3]!.body.creditCost,
    );
    // Nothing waits now; every process sees the same queue.
    await expectEventually('sum by (job) (transmute_queue_depth)', 0);
    await expectEventually('transmute_queue_oldest_waiting_seconds', 0);
    await expectEventually('transmute_sandbox_processes{job="transmute-worker",state="busy"}', 0);
    await expectEventually('transmute_sandbox_processes{job="transmute-worker",state="idle"}', (v) => v >= 1);

    // Both expositions pass promtool's lint.
    for (const url of [api.url, workerMetricsUrl]) {
      const { status, text } = await scrape(url, TOKEN);
      expect(status).toBe(200);
      const lint = promtool(['check', 'metrics'], text);
      expect(lint.status, lint.output).toBe(0);
    }
  });

  it('asks for the token: 401 without it or with a wrong one', async () => {
    for (const url of [api.url, workerMetricsUrl]) {
      expect((await scrape(url)).status).toBe(401);
      expect((await scrape(url, 'wrong-token-0123456789')).status).toBe(401);
    }
    const res = await fetch(`${api.url}/metrics`);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
    expect(await res.json()).toEqual({ error: expect.stringContaining('METRICS_TOKEN') });
  });

  it("shows the queue while jobs wait, and its oldest job's age", { timeout: 120_000 }, async () => {
    // Two spins take both worker slots (test-spin runs two at a time); the third waits its turn.
    const spins = await Promise.all(
      [1, 2, 3].map((i) =>
        submitConvert(api.url, key, { name: `spin${i}.txt`, data: 'x' }, { to: 'txt', op: 'test-spin' }),
      ),
    );
    await expectEventually('max(transmute_queue_depth{plugin="test-spin"})', (v) => v >= 1);
    await expectEventually('max(transmute_queue_oldest_waiting_seconds)', (v) => v > 0);
    await Promise.all(spins.map((s) => waitForJob(api.url, key, s.body.jobId, 60_000)));
    await expectEventually('max(transmute_queue_depth{plugin="test-spin"})', 0);
  });
});

describe('the dashboard and the alert rules', () => {
  it('promtool accepts the alert rules', () => {
    const result = promtool(['check', 'rules', path.join(ROOT, 'docs/observability/alerts.yml')]);
    expect(result.status, result.output).toBe(0);
    expect(result.output).toMatch(/SUCCESS: \d+ rules found/);
  });

  it('the alerts fire as their unit tests expect (promtool test rules)', () => {
    const result = promtool(['test', 'rules', path.join(ROOT, 'docs/observability/alerts.test.yml')]);
    expect(result.status, result.output).toBe(0);
  });

  it('the Grafana dashboard is a valid dashboard whose queries use only metrics the server exports', async () => {
    const target = z.object({
      expr: z.string().min(1),
      refId: z.string(),
      legendFormat: z.string().optional(),
      datasource: z.unknown().optional(),
    });
    const panel = z
      .object({
        id: z.number().int(),
        title: z.string().min(1),
        type: z.enum(['timeseries', 'stat', 'gauge', 'row']),
        gridPos: z.object({
          x: z.number().int().min(0).max(23),
          y: z.number().int().min(0),
          w: z.number().int().min(1).max(24),
          h: z.number().int().min(1),
        }),
        targets: z.array(target).optional(),
        datasource: z.unknown().optional(),
        fieldConfig: z.unknown().optional(),
        options: z.unknown().optional(),
      })
      .strict();
    const dashboard = z
      .object({
        title: z.string().min(1),
        uid: z.string().regex(/^[a-zA-Z0-9_-]{1,40}$/),
        schemaVersion: z.number().int().min(36),
        version: z.number().int(),
        editable: z.boolean(),
        time: z.object({ from: z.string(), to: z.string() }),
        refresh: z.string(),
        tags: z.array(z.string()),
        panels: z.array(panel).min(7),
        templating: z.object({
          list: z.array(
            z.object({ name: z.string(), type: z.enum(['datasource', 'query', 'interval', 'custom']) }).passthrough(),
          ),
        }),
        annotations: z.unknown().optional(),
        __inputs: z.unknown().optional(),
        __requires: z.unknown().optional(),
      })
      .strict();
    const parsed = dashboard.parse(
      JSON.parse(await readFile(path.join(ROOT, 'docs/observability/grafana-dashboard.json'), 'utf8')),
    );
    expect(new Set(parsed.panels.map((p) => p.id)).size).toBe(parsed.panels.length);
    const titles = parsed.panels.map((p) => p.title.toLowerCase()).join(' | ');
    for (const topic of ['request rate', 'error', 'p95', 'queue depth', 'job duration', 'sandbox kills', 'office'])
      expect(titles).toContain(topic);
    // Every metric a panel or an alert queries is one the server exports (names checked against the source).
    const source = await readFile(path.join(ROOT, 'core/telemetry/metrics.ts'), 'utf8');
    const alerts = await readFile(path.join(ROOT, 'docs/observability/alerts.yml'), 'utf8');
    const exprs = [...parsed.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr)), alerts].join('\n');
    const used = new Set(
      [...exprs.matchAll(/\btransmute_[a-z_]+/g)].map((m) => m[0].replace(/_(bucket|sum|count)$/, '')),
    );
    expect(used.size).toBeGreaterThan(8);
    for (const name of used) expect(source, name).toContain(`'${name}'`);
  });
});

describe('office pool metrics, and METRICS_PORT on the API server', () => {
  it('counts warm conversions and listeners; /metrics moves to METRICS_PORT', { timeout: 180_000 }, async () => {
    const server = await startServer({ plugins: officePlugins, env: { OFFICE_POOL_SIZE: '1', METRICS_PORT: '0' } });
    try {
      const metricsUrl = server.server.metricsUrl!;
      expect(metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      // With METRICS_PORT and no token, PORT no longer serves /metrics.
      expect((await scrape(server.url)).status).toBe(404);
      const key = await server.createKey('pro');
      const { data } = await convertAndDownload(
        server.url,
        key,
        { name: 'memo.docx', data: docxText(['Observed by Prometheus']) },
        { to: 'pdf' },
      );
      expect(data.subarray(0, 5).toString()).toBe('%PDF-');
      const { status, text } = await scrape(metricsUrl);
      expect(status).toBe(200);
      expect(text).toMatch(/^transmute_office_conversions_total 1$/m);
      expect(text).toMatch(/^transmute_office_listeners\{state="idle"\} 1$/m);
      expect(text).toMatch(/^transmute_office_restarts_total 0$/m);
      expect(text).toMatch(/^transmute_jobs_finished_total\{plugin="office-convert",status="done"\} 1$/m);
    } finally {
      await server.close();
    }
  });
});
