/**
 * The hostile-input suite (item 5): a few hundred inputs an attacker or a broken client
 * could send, through every endpoint (REST convert/merge/batch/extraction tools, GraphQL, tRPC, raw
 * multipart) and every plugin family. The cases are in fixtures/hostile-cases.ts; the inputs are
 * generated at test time (fixtures/hostile.ts).
 *
 * One real server runs as a child process (apps/server/main.ts, embedded mode, its own DATA_DIR),
 * so a crash or a frozen event loop shows up as exactly that. Every case must end as:
 *   - a clean 4xx `{error}` at submit, or
 *   - a `failed` job with an `error` string, or
 *   - a `done` job, when the input is legitimately convertible (the case says which),
 * and never a 5xx, never a run longer than its plugin's timeout, and once the job is over none of
 * its files (input blob, work dir, output of a failed job) may be left in DATA_DIR.
 * Throughout, a separate probe process hits /healthz every 200 ms: every probe must be answered, none
 * slower than a stalled event loop would make it (STALLED_MS); answers over 1 s are listed. The
 * server's memory is read idle and after the suite, each right after a full collection: the live heap must come back
 * within 1.25x, buffers within 16 MB, resident memory within 1.5x.
 *
 * HOSTILE_ONLY=<substring> runs the matching cases only; HOSTILE_SKIP_HANGS=1 skips the cases marked
 * `freezesServer` (those that froze the event loop before runs were isolated).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { openSync, closeSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import http from 'node:http';
import { connect } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Registry } from '../core/registry/index.js';
import { AccountService } from '../core/services/accounts.js';
import { systemClock } from '../core/services/clock.js';
import { SqliteStore, openSqliteDatabase } from '../core/store/sqlite/index.js';
import { standardPlugins } from '../plugins/index.js';
import { compiledApp, ROOT, SERVER_ENV, SERVER_NODE_FLAGS, freePort } from './helpers.js';
import { makeOriginals, type Originals, type TestFile } from './fixtures/hostile.js';
import {
  BEACON,
  hostileCases,
  warmUpCases,
  type HostileCase,
  type Outcome,
  type Submission,
} from './fixtures/hostile-cases.js';

/** /healthz answers slower than this are listed with what ran meanwhile (diagnosis, not a verdict). */
const SLOW_HEALTHZ_MS = 1000;
/**
 * A /healthz answer slower than this is a stalled event loop, not a loaded machine (the cases that
 * froze the server before runs were isolated held it for far longer).
 */
const STALLED_MS = 10_000;
/** A job may overrun its plugin's timeout by this much (the kill, the failure write, the poll). */
const TIMEOUT_SLACK_MS = 10_000;
/**
 * Files of an ended job, or of an upload refused mid-body, are deleted right after; the grace is for a
 * machine loaded by other suites (CI runs the soak beside this file).
 */
const CLEANUP_GRACE_MS = 15_000;
const KEYS = 8;
const SERVER_WORKERS = 4;

const ONLY = process.env.HOSTILE_ONLY;
const SKIP_HANGS = process.env.HOSTILE_SKIP_HANGS === '1';

const registry = new Registry(standardPlugins);

interface Server {
  url: string;
  dataDir: string;
  child: ChildProcess;
  logFile: string;
  keys: string[];
  db: Database.Database;
  /** Where the server writes its memory use after a full collection (collectedMemory). */
  memoryReportFile: string;
}

let server: Server;
let originals: Originals;
let probe: ChildProcess;
let beacon: http.Server;
const beaconHits: string[] = [];
/** One /healthz probe: when it ended, how long it took, and the server's CPU use and the load meanwhile. */
const probeSamples: Array<{ at: number; ms: number; ok: boolean; cpu: number; load: string }> = [];
const rss: Record<string, number> = {};
let memoryAtIdle = '';
/** The server's memory use after a full collection, idle (after the warm-up) and after the suite. */
const collected: Record<string, NodeJS.MemoryUsage> = {};
/** sha256 of every file a case sent -> the case names, to name the owner of a leftover upload. */
const inputOwners = new Map<string, Set<string>>();
const doneJobs = new Set<string>();
/** When each case ran, to name the suspects of a slow /healthz answer. */
const caseTimes: Array<{ name: string; start: number; end: number }> = [];
const caseOfJob = new Map<string, string>();
const failedJobs = new Set<string>();
const cases = hostileCases();
// The slow ones first, so that the many quick ones overlap them instead of waiting at the end.
const selected = cases
  .filter((c) => !ONLY || c.name.includes(ONLY))
  .sort((a, b) => Number(Boolean(b.slow)) - Number(Boolean(a.slow)));

// ------------------------------------------------------------------------------------------------
// The server, the probe, memory
// ------------------------------------------------------------------------------------------------

async function startChildServer(): Promise<Server> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'transmute-hostile-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const logFile = path.join(dataDir, '..', `${path.basename(dataDir)}.log`);
  const memoryReportFile = path.join(dataDir, '..', `${path.basename(dataDir)}.memory`);
  const log = openSync(logFile, 'w');
  // Run as it ships (npm start, the Docker image): the same V8 flags and malloc arenas; beside them only the hook
  // that lets the memory check ask for a full collection first (collectedMemory).
  const collectHook = pathToFileURL(path.join(ROOT, 'test/collect-on-signal.mjs')).href;
  const main = await compiledApp('apps/server/main.js');
  const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, '--expose-gc', '--import', collectHook, main], {
    cwd: ROOT,
    env: {
      ...process.env,
      ...SERVER_ENV,
      MEMORY_REPORT_FILE: memoryReportFile,
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_URL: url,
      LOG_LEVEL: 'info',
      QUEUE_POLL_MS: '50',
      WORKERS: String(SERVER_WORKERS),
      SHUTDOWN_GRACE_MS: '2000',
    },
    stdio: ['ignore', log, log],
  });
  closeSync(log);
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}: ${await logTail(logFile)}`);
    if (
      await fetch(`${url}/healthz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    if (Date.now() > deadline) throw new Error('server did not start in 60 s');
    await sleep(100);
  }
  // The server's own store (SQLite in WAL mode is shared by processes): Business keys, one per
  // lane of cases, so polling never meets a rate limit; and job rows to follow.
  const db = openSqliteDatabase(path.join(dataDir, 'transmute.db'));
  const accounts = new AccountService(new SqliteStore(db), systemClock);
  const keys: string[] = [];
  for (let i = 0; i < KEYS; i++)
    keys.push((await accounts.createKey((await accounts.createAccount({ plan: 'business' })).id)).key);
  return { url, dataDir, child, logFile, keys, db, memoryReportFile };
}

/**
 * The server's memory use right after a full garbage collection (test/collect-on-signal.mjs): what is live, where
 * RSS alone also counts heap V8 keeps reserved and pages malloc has not returned yet.
 */
async function collectedMemory(): Promise<NodeJS.MemoryUsage> {
  const reports = async () =>
    (await readFile(server.memoryReportFile, 'utf8').catch(() => '')).split('\n').filter(Boolean);
  const before = (await reports()).length;
  server.child.kill('SIGUSR2');
  for (const deadline = Date.now() + 10_000; Date.now() < deadline; await sleep(50)) {
    const lines = await reports();
    if (lines.length > before) return JSON.parse(lines.at(-1)!) as NodeJS.MemoryUsage;
  }
  throw new Error('the server wrote no memory report within 10 s of SIGUSR2');
}

async function logTail(file: string, lines = 40): Promise<string> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text.trim().split('\n').slice(-lines).join('\n');
}

/**
 * /healthz every 200 ms from its own process, so this process's work never skews the figures.
 * Each sample also gives the server process's CPU use during the probe (100 = one core busy: its
 * event loop was working; low while slow: it was starved of CPU) and the load average.
 */
function startProbe(url: string, pid: number): ChildProcess {
  const source = `
    const fs = require('node:fs');
    const [url, pid] = process.argv.slice(1);
    const ticks = () => {
      try {
        const stat = fs.readFileSync('/proc/' + pid + '/stat', 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        return Number(fields[11]) + Number(fields[12]);
      } catch { return 0; }
    };
    const tick = async () => {
      const started = performance.now();
      const before = ticks();
      let ok = false;
      try { ok = (await fetch(url, { signal: AbortSignal.timeout(30000) })).ok; } catch {}
      const ms = performance.now() - started;
      const cpu = Math.round(((ticks() - before) * 10 * 100) / Math.max(ms, 10));
      const load = fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 1).join('');
      process.stdout.write(JSON.stringify({ at: Date.now(), ms: Math.round(ms), ok, cpu, load }) + '\\n');
      setTimeout(tick, 200);
    };
    tick();`;
  const child = spawn(process.execPath, ['-e', source, `${url}/healthz`, String(pid)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let buffer = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    const lines = buffer.split('\n');
    buffer = lines.pop()!;
    for (const line of lines) if (line) probeSamples.push(JSON.parse(line));
  });
  return child;
}

/** Resident memory (bytes) of a process, from /proc. */
async function rssOf(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
}

/** The server and every process below it (isolated runs, engines). */
async function treeRss(root: number): Promise<{ total: number; processes: number }> {
  const parents = new Map<number, number>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    parents.set(Number(entry), ppid);
  }
  const inTree = (pid: number): boolean => {
    for (let p: number | undefined = pid, hops = 0; p && hops < 64; p = parents.get(p), hops++)
      if (p === root) return true;
    return false;
  };
  let total = 0;
  let processes = 0;
  for (const pid of parents.keys()) {
    if (!inTree(pid)) continue;
    total += await rssOf(pid).catch(() => 0);
    processes++;
  }
  return { total, processes };
}

/**
 * Where the server's memory is, beside its RSS: the V8 heap (used and reserved, by space), memory V8 accounts as
 * external (Buffers and ArrayBuffers), from its own /metrics (prom-client's default metrics; open to loopback
 * clients), and anonymous against file-backed resident pages from /proc (the rest of the anonymous memory is
 * malloc's: native allocations, glibc arenas).
 */
async function memoryBreakdown(pid: number): Promise<string> {
  const metrics = await fetch(`${server.url}/metrics`).then(
    (r) => (r.ok ? r.text() : ''),
    () => '',
  );
  const metric = (name: string) => Number(new RegExp(`^${name} ([0-9.e+]+)$`, 'm').exec(metrics)?.[1] ?? NaN);
  const space = (kind: 'used' | 'total', name: string) =>
    metric(`nodejs_heap_space_size_${kind}_bytes\\{space="${name}"\\}`);
  const spaces = ['new', 'old', 'code', 'large_object']
    .filter((name) => space('total', name) >= 1e6)
    .map((name) => `${name} ${mb(space('used', name))}/${mb(space('total', name))}`);
  const rollup = await readFile(`/proc/${pid}/smaps_rollup`, 'utf8').catch(() => '');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(rollup)?.[1] ?? NaN) * 1024;
  return (
    `V8 heap used ${mb(metric('nodejs_heap_size_used_bytes'))} of ${mb(metric('nodejs_heap_size_total_bytes'))} ` +
    `(used/reserved: ${spaces.join(', ')}), external ${mb(metric('nodejs_external_memory_bytes'))}; ` +
    `resident anonymous ${mb(kb('Anonymous'))}, file-backed ${mb(kb('Rss') - kb('Anonymous'))}`
  );
}

const mb = (bytes: number) => `${Math.round(bytes / 1e6)} MB`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ------------------------------------------------------------------------------------------------
// Submitting: REST, GraphQL, tRPC, raw multipart
// ------------------------------------------------------------------------------------------------

const REST_PATHS = {
  convert: '/api/v1/convert',
  merge: '/api/pdf/merge',
  batch: '/api/batch/convert',
  'parse-cv': '/api/parse-cv',
  'file-search': '/api/file-search',
  'pdf-to-markdown': '/api/pdf-to-markdown',
} as const;

/** A multipart body written byte for byte (file names exactly as given: CR, LF, NUL and all). */
function multipartBody(
  parts: Array<{ name: string; filename?: string; data: Buffer | string }>,
  boundary: string,
): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const filename = part.filename !== undefined ? `; filename="${part.filename}"` : '';
    const disposition = `form-data; name="${part.name}"${filename}`;
    const type = part.filename !== undefined ? '\r\nContent-Type: application/octet-stream' : '';
    chunks.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}${type}\r\n\r\n`, 'utf8'),
      Buffer.from(part.data),
      Buffer.from('\r\n'),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

function formOf(files: TestFile[], fileField: string, fields: Array<[string, string]>): FormData {
  const form = new FormData();
  for (const [name, value] of fields) form.append(name, value);
  for (const file of files) form.append(fileField, new Blob([new Uint8Array(file.data)]), file.name);
  return form;
}

interface Submitted {
  status: number;
  body: any;
  /** A 4xx/5xx answer's message (REST error, GraphQL errors[0], tRPC error). */
  error?: string;
  /** Whether the answer is an internal error in disguise (GraphQL masked, tRPC INTERNAL_SERVER_ERROR). */
  internal: boolean;
  jobId?: string;
  batchId?: string;
  /** Per-file rejections at submit (batch and extraction). */
  rejected: number;
  tool?: string;
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  data: Buffer;
  /** The body as JSON, or `{raw}` when it is not JSON. */
  json: any;
}

/**
 * HTTP for one case, on its own keep-alive pool (node:http, not fetch): the answer is read even
 * when the server gives it before the body is sent, and a connection a refusal leaves unusable
 * cannot stall another case's requests (the keep-alive test below covers that bug on its own).
 */
class CaseClient {
  private readonly agent = new http.Agent({ keepAlive: true });
  constructor(readonly key: string) {}

  async send(
    method: string,
    url: string,
    {
      body,
      headers = {},
      auth = true,
    }: { body?: FormData | Buffer; headers?: Record<string, string>; auth?: boolean } = {},
  ): Promise<Answer> {
    const all: Record<string, string> = { ...headers, ...(auth ? { authorization: `Bearer ${this.key}` } : {}) };
    let bytes: Buffer | undefined;
    if (body instanceof FormData) {
      const encoded = new Response(body);
      all['content-type'] = encoded.headers.get('content-type')!;
      bytes = Buffer.from(await encoded.arrayBuffer());
    } else bytes = body;
    if (bytes) all['content-length'] = String(bytes.length);
    return new Promise((resolve, reject) => {
      let answered = false;
      const req = http.request(new URL(url, server.url), { method, agent: this.agent, headers: all }, (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const data = Buffer.concat(chunks);
          let json: any;
          try {
            json = JSON.parse(data.toString('utf8'));
          } catch {
            json = { raw: data.toString('utf8') };
          }
          resolve({ status: res.statusCode!, headers: res.headers, data, json });
        });
      });
      // Writing the rest of a refused body may fail once the answer is in: the answer counts.
      req.on('error', (err) => (answered ? undefined : reject(err)));
      req.end(bytes);
    });
  }

  close() {
    this.agent.destroy();
  }
}

async function submit(c: HostileCase, files: TestFile[], client: CaseClient): Promise<Submitted> {
  const s: Submission = c.submit;
  if (s.via === 'graphql') {
    const form = new FormData();
    const variables: Record<string, unknown> = { ...s.variables };
    if (s.single) variables.file = null;
    else variables.files = files.map(() => null);
    form.append('operations', s.operations ?? JSON.stringify({ query: s.query, variables }));
    form.append(
      'map',
      s.map ??
        JSON.stringify(
          Object.fromEntries(files.map((_, i) => [i, [s.single ? 'variables.file' : `variables.files.${i}`]])),
        ),
    );
    for (const [i, file] of files.entries()) form.append(String(i), new Blob([new Uint8Array(file.data)]), file.name);
    const res = await client.send('POST', '/graphql', { body: form, headers: { 'graphql-require-preflight': '1' } });
    const body = res.json;
    const result = body?.data ? (Object.values(body.data)[0] as any) : null;
    const first = body?.errors?.[0];
    const internal =
      res.status >= 500 ||
      first?.extensions?.code === 'INTERNAL_SERVER_ERROR' ||
      first?.message === 'Unexpected error.';
    if (!result)
      return {
        status: res.status === 200 ? 400 : res.status,
        body,
        error: first?.message ?? body.raw,
        internal,
        rejected: 0,
      };
    return {
      status: res.status,
      body,
      internal,
      jobId: result.jobId,
      batchId: result.batchId,
      rejected: result.errors?.length ?? 0,
      tool: s.tool,
    };
  }
  if (s.via === 'trpc') {
    const res = await client.send('POST', `/trpc/${s.procedure}`, {
      body: formOf(files, s.fileField ?? 'files', s.fields ?? []),
    });
    const body = res.json;
    if (body.error)
      return {
        status: res.status,
        body,
        error: body.error.message,
        internal: res.status >= 500 || body.error.data?.code === 'INTERNAL_SERVER_ERROR',
        rejected: 0,
      };
    const result = body.result?.data;
    return {
      status: res.status,
      body,
      internal: false,
      jobId: result?.jobId,
      batchId: result?.batchId,
      rejected: result?.errors?.length ?? 0,
      tool: s.tool,
    };
  }
  const endpoint = REST_PATHS[s.via];
  const fileField = s.via === 'convert' ? 'file' : 'files';
  let res: Answer;
  if (s.raw) {
    const boundary = `----hostile${createHash('sha1').update(c.name).digest('hex').slice(0, 16)}`;
    const parts = [
      ...(s.fields ?? []).map(([name, data]) => ({ name, data })),
      ...files.map((f, i) => ({ name: s.fileFields?.[i] ?? fileField, filename: f.name, data: f.data })),
    ];
    res = await client.send('POST', endpoint, {
      body: multipartBody(parts, boundary),
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    });
  } else {
    const form = formOf([], fileField, s.fields ?? []);
    for (const [i, f] of files.entries()) {
      form.append(s.fileFields?.[i] ?? fileField, new Blob([new Uint8Array(f.data)]), f.name);
    }
    res = await client.send('POST', endpoint, { body: form });
  }
  const body = res.json;
  if (res.status >= 400)
    return { status: res.status, body, error: body?.error, internal: res.status >= 500, rejected: 0 };
  const tool = s.via === 'parse-cv' || s.via === 'file-search' || s.via === 'pdf-to-markdown' ? s.via : undefined;
  return {
    status: res.status,
    body,
    internal: false,
    jobId: body.jobId,
    batchId: body.batchId,
    rejected: body.errors?.length ?? 0,
    ...(tool ? { tool } : {}),
  };
}

// ------------------------------------------------------------------------------------------------
// Following the jobs to their end
// ------------------------------------------------------------------------------------------------

interface JobRow {
  id: string;
  plugin_id: string;
  status: string;
  error: string | null;
  inputs: string;
  started_at: number | null;
  completed_at: number | null;
  attempts: number;
}

function jobRows(submitted: Submitted): JobRow[] {
  const columns = 'id, plugin_id, status, error, inputs, started_at, completed_at, attempts';
  if (submitted.jobId)
    return server.db.prepare(`SELECT ${columns} FROM jobs WHERE id = ?`).all(submitted.jobId) as JobRow[];
  if (submitted.batchId)
    return server.db
      .prepare(`SELECT ${columns} FROM jobs WHERE batch_id = ? ORDER BY created_at, id`)
      .all(submitted.batchId) as JobRow[];
  return [];
}

function timeoutOf(pluginId: string, files: TestFile[]): number {
  const plugin = registry.plugin(pluginId);
  if (!plugin) return 120_000;
  const inputs = files.map((f) => ({ path: '', format: 'pdf' as const, filename: f.name, bytes: f.data.length }));
  return typeof plugin.limits.timeoutMs === 'number' ? plugin.limits.timeoutMs : plugin.limits.timeoutMs(inputs);
}

/** Wait until every job of the submission has ended (status in the store), or the deadline. */
async function waitForJobs(ids: string[], deadline: number): Promise<JobRow[]> {
  const query = server.db.prepare(
    `SELECT id, plugin_id, status, error, inputs, started_at, completed_at, attempts FROM jobs WHERE id IN ` +
      `(${ids.map(() => '?').join(',')})`,
  );
  for (let delay = 50; ; delay = Math.min(500, delay * 1.5)) {
    const rows = query.all(...ids) as JobRow[];
    if (rows.every((r) => r.status === 'done' || r.status === 'failed')) return rows;
    if (Date.now() > deadline) {
      const stuck = rows
        .filter((r) => r.status !== 'done' && r.status !== 'failed')
        .map((r) => `${r.id} ${r.status} (${r.plugin_id})`);
      throw new Error(`jobs still running past their plugin's timeout: ${stuck.join(', ')}`);
    }
    await sleep(delay);
  }
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}

/** None of the job's files may remain: its work dir, its input blobs, and its output if it failed. */
async function assertCleanedUp(job: JobRow, blobKeys: string[]) {
  const leftovers = async () => {
    const paths = [
      path.join(server.dataDir, 'work', job.id),
      ...blobKeys.map((k) => path.join(server.dataDir, 'blobs', k)),
    ];
    // The output of each attempt has its own key (outputs/<job>.<attempt>: core/services/runner.ts).
    const outputs = Array.from({ length: job.attempts }, (_, i) => `${job.id}.${i + 1}`);
    if (job.status === 'failed')
      paths.push(...outputs.map((name) => path.join(server.dataDir, 'blobs', 'outputs', name)));
    const left: string[] = [];
    for (const p of paths) if (await exists(p)) left.push(path.relative(server.dataDir, p));
    return left;
  };
  const deadline = Date.now() + CLEANUP_GRACE_MS;
  let left = await leftovers();
  while (left.length && Date.now() < deadline) {
    await sleep(200);
    left = await leftovers();
  }
  expect(left, `files of ${job.status} job ${job.id} left in DATA_DIR`).toEqual([]);
}

/** An error string fit for a client: a sentence, no stack, no server paths. */
function assertCleanError(message: unknown, where: string) {
  expect(typeof message, `${where}: error should be a string`).toBe('string');
  const text = message as string;
  expect(text.length, `${where}: empty error`).toBeGreaterThan(0);
  expect(text, `${where}: error shows a stack`).not.toMatch(/\n\s+at /);
  expect(text, `${where}: error shows a server path`).not.toContain(server.dataDir);
  expect(text, `${where}: error shows a server path`).not.toMatch(/\/(tmp|work|home|root|usr)\//);
}

function classify(expected: HostileCase['expect']): string[] {
  return (Array.isArray(expected) ? expected : [expected]).map((e) =>
    e
      .split(',')
      .map((s) => s.trim())
      .sort()
      .join(','),
  );
}

async function runCase(c: HostileCase, client: CaseClient) {
  const files = c.files(originals);
  for (const f of files) {
    const hash = createHash('sha256').update(f.data).digest('hex');
    if (!inputOwners.has(hash)) inputOwners.set(hash, new Set());
    inputOwners.get(hash)!.add(c.name);
  }
  const submitted = await submit(c, files, client);
  const context = `${c.name}: ${submitted.status} ${JSON.stringify(submitted.body).slice(0, 500)}`;
  expect(submitted.status, `no 5xx at submit (${context})`).toBeLessThan(500);
  expect(submitted.internal, `an internal error in disguise (${context})`).toBe(false);

  const outcomes: Outcome[] = [];
  /** What each job or row said, for the failure message. */
  const said: string[] = [];
  if (submitted.status >= 400 || (!submitted.jobId && !submitted.batchId)) {
    expect(submitted.status, context).toBeGreaterThanOrEqual(400);
    assertCleanError(submitted.error, context);
    if (c.submit.via !== 'graphql' && c.submit.via !== 'trpc') {
      expect(
        Object.keys(submitted.body).filter((k) => k !== 'error' && k !== 'code'),
        `error body is {error} (${context})`,
      ).toEqual([]);
    }
    if (c.status !== undefined) expect(submitted.status, context).toBe(c.status);
    if (c.error) expect(submitted.error, context).toMatch(c.error);
    outcomes.push('rejected');
  } else {
    for (let i = 0; i < submitted.rejected; i++) outcomes.push('rejected');
    for (const e of submitted.body?.errors ?? (Object.values(submitted.body?.data ?? {})[0] as any)?.errors ?? [])
      assertCleanError(e.error, context);
    // Blob keys straight away: once a convert job ends, its row forgets them.
    const rows = jobRows(submitted);
    const blobKeys = new Map(
      rows.map((r) => [r.id, (JSON.parse(r.inputs) as Array<{ blobKey: string }>).map((i) => i.blobKey)]),
    );
    const ids = rows.map((r) => r.id);
    for (const id of ids) caseOfJob.set(id, c.name);
    expect(ids.length, `accepted but no job in the store (${context})`).toBeGreaterThan(0);
    const timeoutMs = Math.max(
      ...rows.map((r) => timeoutOf(r.plugin_id, c.submit.via === 'merge' ? files : [files[0]!])),
    );
    // Queueing behind other cases is allowed for; running past the plugin's timeout is not.
    const ended = await waitForJobs(ids, Date.now() + timeoutMs + TIMEOUT_SLACK_MS + 180_000);
    for (const job of ended) {
      const where = `${c.name}: job ${job.id} (${job.plugin_id})`;
      if (job.started_at && job.completed_at) {
        expect(
          job.completed_at - job.started_at,
          `${where} ran past its timeout of ${timeoutMs} ms`,
        ).toBeLessThanOrEqual(timeoutMs + TIMEOUT_SLACK_MS);
      }
      said.push(`${job.plugin_id} ${job.status}${job.error ? `: ${job.error}` : ''}`);
      if (job.status === 'failed') {
        assertCleanError(job.error, where);
        // The runner's words for an exception that is not a PluginError: a bug, not a verdict.
        expect(job.error, `${where}: an unexpected exception, not a clear error`).not.toMatch(/internal error/);
        failedJobs.add(job.id);
      } else doneJobs.add(job.id);
      await assertCleanedUp(job, blobKeys.get(job.id) ?? []);
    }
    // What the client sees agrees with the store, and the outputs can be fetched.
    if (submitted.jobId) {
      const { status, json: body } = await client.send('GET', `/api/v1/jobs/${submitted.jobId}`);
      expect(status, context).toBe(200);
      expect(body.status, context).toBe(ended[0]!.status);
      if (body.status === 'failed') assertCleanError(body.error, context);
      outcomes.push(body.status);
      if (body.status === 'done') {
        const res = await client.send('GET', body.downloadUrl, { auth: false });
        expect(res.status, `${context}: download`).toBe(200);
        const disposition = String(res.headers['content-disposition'] ?? '');
        expect(disposition, 'a safe Content-Disposition').not.toMatch(/[\r\n\0]|\.\.\/|\\/);
        await c.checkOutput?.(res.data, disposition);
      }
    } else if (submitted.tool) {
      const { status, json: body } = await client.send('GET', `/api/${submitted.tool}/${submitted.batchId}`);
      expect(status, context).toBe(200);
      expect(body.done, context).toBe(true);
      for (const row of body.rows) {
        said.push(`row ${row.status}${row.error ? `: ${row.error}` : ''}`);
        if (row.status === 'failed' || (row.error !== undefined && row.error !== null)) {
          assertCleanError(row.error, `${c.name}: row ${row.filename}`);
          outcomes.push('failed');
        } else {
          expect(row.status, context).toBe('completed');
          outcomes.push('done');
        }
        await c.checkRow?.(row);
      }
    } else {
      const { status, json: body } = await client.send('GET', `/api/batch/${submitted.batchId}`);
      expect(status, context).toBe(200);
      expect(body.done, context).toBe(true);
      for (const job of ended) outcomes.push(job.status as Outcome);
      if (ended.some((j) => j.status === 'done')) {
        const res = await client.send('GET', body.downloadUrl);
        expect(res.status, `${context}: batch download`).toBe(200);
        await c.checkOutput?.(res.data, String(res.headers['content-disposition'] ?? ''));
      }
    }
  }
  const got = outcomes.sort().join(',');
  expect(classify(c.expect), `${c.name}: outcome ${got} (${context}; ${said.join(' | ')})`).toContain(got);
}

// ------------------------------------------------------------------------------------------------
// Raw sockets: bodies that end early
// ------------------------------------------------------------------------------------------------

/** Send `head` + `body` and half-close; the answer (status line) or '' if the socket closed without one. */
function rawRequest(port: number, head: string, body: Buffer, { waitMs = 10_000 } = {}): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    const done = () => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(waitMs, done);
    socket.on('data', (d) => (answer += d.toString('latin1')));
    socket.on('error', done);
    socket.on('close', done);
    socket.write(head);
    socket.end(body);
  });
}

// ------------------------------------------------------------------------------------------------
// The suite
// ------------------------------------------------------------------------------------------------

describe('hostile inputs', () => {
  beforeAll(async () => {
    // Whatever a case links to, no engine may reach it: some cases point here.
    beacon = http.createServer((request, response) => {
      beaconHits.push(`${request.method} ${request.url}`);
      response.end();
    });
    await new Promise<void>((resolve) => beacon.listen(0, '127.0.0.1', resolve));
    BEACON.url = `http://127.0.0.1:${(beacon.address() as { port: number }).port}`;
    originals = await makeOriginals();
    // Every input is built before the clock starts: generation must not compete with the server.
    for (const c of selected) c.files(originals);
    server = await startChildServer();
    await sleep(2000);
    rss.fresh = await rssOf(server.child.pid!);
    // Idle, warmed: one honest job through each surface and family first, so code loaded on first
    // use (GraphQL schema, tRPC router, the sandbox pool) counts as idle rather than as growth.
    const client = new CaseClient(server.keys[0]!);
    try {
      for (const c of warmUpCases()) await runCase(c, client);
    } finally {
      client.close();
    }
    await sleep(3000);
    rss.idle = await rssOf(server.child.pid!);
    memoryAtIdle = await memoryBreakdown(server.child.pid!);
    collected.idle = await collectedMemory();
    rss.idleTree = (await treeRss(server.child.pid!)).total;
    probe = startProbe(server.url, server.child.pid!);
  }, 300_000);

  afterAll(async () => {
    beacon?.close();
    probe?.kill();
    server?.db.close();
    if (server?.child.exitCode === null) {
      await new Promise<void>((resolve) => {
        server.child.once('exit', () => resolve());
        server.child.kill('SIGTERM');
        setTimeout(() => server.child.kill('SIGKILL'), 10_000);
      });
    }
    if (server) {
      await rm(server.dataDir, { recursive: true, force: true });
      await rm(server.memoryReportFile, { force: true });
      if (process.env.HOSTILE_KEEP_LOG === '1') console.log(`[hostile] server log kept: ${server.logFile}`);
      else await rm(server.logFile, { force: true });
    }
  }, 60_000);

  describe.concurrent('cases', () => {
    selected.forEach((c, i) => {
      const skip = SKIP_HANGS && c.freezesServer !== undefined;
      (skip ? it.skip : it)(`${c.family} via ${c.submit.via}: ${c.name}`, { timeout: 600_000 }, async () => {
        const times = { name: c.name, start: Date.now(), end: Infinity };
        caseTimes.push(times);
        const client = new CaseClient(server.keys[i % KEYS]!);
        try {
          await runCase(c, client);
        } finally {
          times.end = Date.now();
          client.close();
        }
      });
    });
  });

  describe('afterwards', () => {
    it('let no engine reach the beacon', () => {
      expect(beaconHits).toEqual([]);
    });

    it('kept the server up and /healthz answering the whole time', async () => {
      expect(server.child.exitCode, `the server died: ${await logTail(server.logFile)}`).toBeNull();
      const answered = probeSamples.filter((s) => s.ok);
      const worst = Math.max(...probeSamples.map((s) => (s.ok ? s.ms : Infinity)));
      const sorted = answered.map((s) => s.ms).sort((a, b) => a - b);
      const p99 = sorted[Math.floor(sorted.length * 0.99)] ?? NaN;
      console.log(
        `[hostile] /healthz: ${probeSamples.length} probes, p50 ${sorted[Math.floor(sorted.length / 2)]} ms, p99 ` +
          `${p99} ms, worst ${worst} ms`,
      );
      const slow = probeSamples
        .filter((p) => !p.ok || p.ms >= SLOW_HEALTHZ_MS)
        .map((p) => {
          const sent = p.at - p.ms;
          const running = caseTimes.filter((t) => t.start <= p.at && t.end >= sent).map((t) => t.name);
          return (
            `${p.ok ? `${p.ms} ms` : 'no answer'} at +${Math.round((sent - probeSamples[0]!.at) / 1000)} s ` +
            `(server CPU ${p.cpu}%, load ${p.load}), while: ${running.join(' | ')}`
          );
        });
      if (slow.length) console.log(`[hostile] slow /healthz answers:\n${slow.slice(0, 20).join('\n')}`);
      expect(probeSamples.length).toBeGreaterThan(2);
      expect(worst, `worst /healthz latency (failed probes count as infinite)`).toBeLessThan(STALLED_MS);
    });

    it('reports the longest runs', () => {
      const rows = server.db
        .prepare(
          'SELECT id, plugin_id, completed_at - started_at AS ms, status, error FROM jobs WHERE started_at IS NOT ' +
            'NULL ORDER BY ms DESC LIMIT 15',
        )
        .all() as Array<{ id: string; plugin_id: string; ms: number; status: string; error: string | null }>;
      const total = server.db
        .prepare('SELECT SUM(completed_at - started_at) AS ms, COUNT(*) AS n FROM jobs WHERE started_at IS NOT NULL')
        .get() as { ms: number; n: number };
      console.log(
        `[hostile] ${total.n} jobs ran for ${Math.round(total.ms / 1000)} s in all; the ` +
          `longest:\n${rows
            .map(
              (r) =>
                `${Math.round(r.ms / 1000)} s ${caseOfJob.get(r.id) ?? '?'} (${r.plugin_id}) ${r.status}` +
                `${r.error ? `: ${r.error.slice(0, 100)}` : ''}`,
            )
            .join('\n')}`,
      );
    });

    it('left no file behind in DATA_DIR', async () => {
      const list = async (dir: string) =>
        (await readdir(path.join(server.dataDir, dir), { recursive: true, withFileTypes: true }).catch(() => []))
          .filter((e) => e.isFile())
          .map((e) => path.join(e.parentPath, e.name));
      const deadline = Date.now() + 10_000;
      // Uploads, run work dirs, and the temp files of GraphQL (tmp) and tRPC (spool) uploads.
      const leftovers = () => Promise.all([list('blobs/uploads'), list('work'), list('spool'), list('tmp')]);
      let [uploads, work, spool, tmp] = await leftovers();
      while ((uploads.length || work.length || spool.length || tmp.length) && Date.now() < deadline) {
        await sleep(500);
        [uploads, work, spool, tmp] = await leftovers();
      }
      const owners = async (file: string) => {
        const hash = createHash('sha256')
          .update(await readFile(file))
          .digest('hex');
        return (
          `${path.relative(server.dataDir, file)} ` +
          `(${[...(inputOwners.get(hash) ?? ['unknown input'])].join(' | ')})`
        );
      };
      expect(await Promise.all(uploads.map(owners)), 'uploads left in blobs/uploads').toEqual([]);
      expect(
        work.map((f) => path.relative(server.dataDir, f)),
        'files left in work dirs',
      ).toEqual([]);
      expect(
        [...spool, ...tmp].map((f) => path.relative(server.dataDir, f)),
        'upload temp files left (GraphQL, tRPC)',
      ).toEqual([]);
      // Output keys are outputs/<job>.<attempt> (core/services/runner.ts): the job's id, then the attempt's number.
      const outputs = (await list('blobs/outputs')).map((f) => path.basename(f).replace(/\.\d+$/, ''));
      expect(
        outputs.filter((id) => !doneJobs.has(id)),
        'outputs of jobs that did not succeed',
      ).toEqual([]);
      const failedInStore = (
        server.db.prepare("SELECT id FROM jobs WHERE status = 'failed'").all() as Array<{ id: string }>
      ).map((r) => r.id);
      expect(outputs.filter((id) => failedInStore.includes(id))).toEqual([]);
      // Nothing may still be running once the cases are over.
      expect(
        server.db.prepare("SELECT id, plugin_id, status FROM jobs WHERE status NOT IN ('done', 'failed')").all(),
      ).toEqual([]);
    });

    // Both sides are read right after a full collection: uncollected, the same server's RSS after the suite varied
    // from 1.1x to 1.8x idle between runs here, as garbage not yet collected and heap V8 kept reserved, while
    // what was live stayed within 1.1x. What is held for a while and then let go is not a leak: the queue library
    // keeps every job it ran for half the lock lifetime (a liveness check's timer, 30 s by default), so the check
    // reads again for up to a minute, until the figures settle within their limits.
    it('gave its memory back (live heap within 1.25x of idle, buffers within 16 MB, RSS within 1.5x)', {
      timeout: 120_000,
    }, async () => {
      const idle = collected.idle!;
      const limit = 1.5 * idle.rss;
      const within = (m: NodeJS.MemoryUsage) =>
        m.heapUsed <= 1.25 * idle.heapUsed && m.external <= idle.external + 16e6 && m.rss <= limit;
      const started = Date.now();
      const deadline = started + 60_000;
      let after = await collectedMemory();
      while (!within(after) && Date.now() < deadline) {
        await sleep(2000);
        after = await collectedMemory();
      }
      rss.after = await rssOf(server.child.pid!);
      const tree = await treeRss(server.child.pid!);
      rss.afterTree = tree.total;
      const live = (m: NodeJS.MemoryUsage) =>
        `RSS ${mb(m.rss)}, heap used ${mb(m.heapUsed)} of ${mb(m.heapTotal)}, external ${mb(m.external)}`;
      console.log(
        `[hostile] server RSS: just started ${mb(rss.fresh!)}, idle after warm-up ${mb(rss.idle!)}, after the suite ` +
          `${mb(rss.after)} (${(rss.after / rss.idle!).toFixed(2)}x idle); ` +
          `with its child processes (sandbox pool, engines): idle ${mb(rss.idleTree!)}, after ${mb(rss.afterTree)} ` +
          `in ${tree.processes} processes\n` +
          `[hostile] server memory idle: ${memoryAtIdle}\n` +
          `[hostile] server memory after: ${await memoryBreakdown(server.child.pid!)}\n` +
          `[hostile] after a full collection: idle ${live(idle)}; after the suite ${live(after)} ` +
          `(read ${Math.round((Date.now() - started) / 1000)} s after the suite)`,
      );
      // What the suite left live: it runs over 200 jobs, so a leak of about 50 kB of objects or 70 kB of buffers a job
      // fails this.
      expect(after.heapUsed).toBeLessThanOrEqual(1.25 * idle.heapUsed);
      expect(after.external).toBeLessThanOrEqual(idle.external + 16e6);
      expect(after.rss).toBeLessThanOrEqual(limit);
    });

    it('logged no crash, unhandled rejection or uncaught exception', async () => {
      const log = await readFile(server.logFile, 'utf8');
      const bad = log.split('\n').filter((line) => /"level":60|uncaught|unhandled/i.test(line));
      expect(bad.slice(0, 5)).toEqual([]);
    });
  });

  describe('keep-alive after an early refusal (raw socket)', () => {
    it('answers the next request on the same connection after a 400 given mid-body', { timeout: 30_000 }, async () => {
      // A duplicate field is refused as soon as it is read, long before the 300 kB file has arrived.
      const boundary = '----hostilekeepalive';
      const first = multipartBody(
        [
          { name: 'to', data: 'webp' },
          { name: 'to', data: 'png' },
          { name: 'file', filename: 'a.png', data: Buffer.alloc(300_000, 7) },
        ],
        boundary,
      );
      const second = multipartBody(
        [
          { name: 'to', data: 'webp' },
          { name: 'file', filename: 'b.png', data: originals.png },
        ],
        boundary,
      );
      const head = (length: number) =>
        `POST /api/v1/convert HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${server.keys[1]}\r\n` +
        `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${length}\r\n\r\n`;
      const socket = connect(Number(new URL(server.url).port), '127.0.0.1');
      let received = '';
      socket.on('data', (d) => (received += d.toString('latin1')));
      socket.on('error', () => undefined);
      try {
        socket.write(head(first.length));
        socket.write(first.subarray(0, 2000));
        const deadline = Date.now() + 10_000;
        while (!/^HTTP\/1\.1 400/.test(received) && Date.now() < deadline) await sleep(50);
        expect(received, 'the early refusal').toMatch(/^HTTP\/1\.1 400/);
        const closing = /\r\nconnection: close\r\n/i.test(received);
        // The client was still sending: it finishes its body, then sends the next request.
        socket.write(first.subarray(2000));
        if (closing) return; // refusing to keep the connection is allowed; hanging on it is not
        socket.write(head(second.length));
        socket.write(second);
        const next = Date.now() + 10_000;
        while ((received.match(/HTTP\/1\.1 \d+/g) ?? []).length < 2 && Date.now() < next) await sleep(50);
        expect(
          received.match(/HTTP\/1\.1 \d+/g),
          'the second request on the kept-alive connection was never answered',
        ).toEqual(['HTTP/1.1 400', 'HTTP/1.1 200']);
        // Its job holds an upload until it ends: let it end, so later cases find DATA_DIR clean.
        const jobId = /"jobId":"([^"]+)"/.exec(received)?.[1];
        expect(jobId).toBeDefined();
        for (let i = 0; i < 100; i++) {
          const status = await fetch(`${server.url}/api/v1/jobs/${jobId}`, {
            headers: { authorization: `Bearer ${server.keys[1]}` },
          }).then((r) => r.json() as Promise<{ status: string }>);
          if (status.status === 'done' || status.status === 'failed') break;
          await sleep(200);
        }
      } finally {
        socket.destroy();
      }
    });
  });

  // Last, because before the upload layer is fixed a cut body takes the whole process down.
  describe('multipart bodies cut short (raw sockets)', () => {
    const cuts = [
      { name: 'mid-file', cut: (body: Buffer) => body.subarray(0, body.length - 600) },
      {
        name: 'mid-header',
        cut: (body: Buffer) => body.subarray(0, body.indexOf('Content-Type: application/octet-stream') + 12),
      },
      { name: 'no closing boundary', cut: (body: Buffer) => body.subarray(0, body.lastIndexOf('--')) },
      { name: 'no boundary at all', cut: () => Buffer.from('just some bytes, no parts') },
    ];
    for (const { name, cut, declareFull } of [
      ...cuts.map((c) => ({ ...c, declareFull: false })),
      { ...cuts[0]!, name: 'mid-file, connection closed before the declared length', declareFull: true },
    ]) {
      it(`${name}: a clean 400 (or a closed socket), the server stays up, no partial blob`, {
        timeout: 60_000,
      }, async () => {
        const boundary = '----hostilecut';
        const body = multipartBody(
          [
            { name: 'to', data: 'webp' },
            { name: 'file', filename: 'cut.png', data: Buffer.alloc(4000, 7) },
          ],
          boundary,
        );
        const sent = cut(body);
        const port = Number(new URL(server.url).port);
        const head =
          `POST /api/v1/convert HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${server.keys[0]}\r\n` +
          `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ` +
          `${declareFull ? body.length : sent.length}\r\nConnection: close\r\n\r\n`;
        const uploadsLeft = () => readdir(path.join(server.dataDir, 'blobs', 'uploads')).catch(() => [] as string[]);
        // Uploads of jobs other cases started may still be held: only this request's count.
        const before = new Set(await uploadsLeft());
        const answer = await rawRequest(port, head, sent);
        await sleep(500);
        expect(server.child.exitCode, `the server died: ${await logTail(server.logFile)}`).toBeNull();
        expect(await fetch(`${server.url}/healthz`).then((r) => r.status)).toBe(200);
        if (answer) expect(answer.split('\r\n')[0]).toMatch(/^HTTP\/1\.1 4\d\d/);
        const added = async () => (await uploadsLeft()).filter((name) => !before.has(name));
        const deadline = Date.now() + CLEANUP_GRACE_MS;
        while ((await added()).length && Date.now() < deadline) await sleep(200);
        expect(await added(), 'a partial upload left in blobs/uploads').toEqual([]);
      });
    }
  });
});
