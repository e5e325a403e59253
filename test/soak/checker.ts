/**
 * The soak's checker. While the load runs, the verifier downloads each done job's output over HTTP as soon as it
 * finishes (outputs go after RETENTION_S) and checks it against its input. After the drain, check() verifies the
 * invariants on the store, the bucket, the DATA_DIRs, the receiver and /proc, and returns each violation as a line.
 */
import { readdir, readFile, readlink, stat } from 'node:fs/promises';
import path from 'node:path';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import type { PostgresStore } from '../../core/store/postgres/index.js';
import type { JobRecord } from '../../core/store/ports/jobs.js';
import { sleep } from '../helpers.js';
import { S3RVER_CREDENTIALS } from '../servers/s3.js';
import type { Cluster, SoakNode } from './cluster.js';
import { checkOutput } from './inputs.js';
import type { Account, Ledger } from './load.js';
import type { WebhookReceiver } from './receiver.js';

export interface Verification {
  ok: boolean;
  reason?: string;
  tries: number;
}

const stemOf = (filename: string) => filename.replace(/\.[^.]*$/, '');

/** A live API's origin (an output's link works on any of them: they share TOKEN_SECRET). */
function liveApi(cluster: Cluster): SoakNode | undefined {
  const apis = cluster.apis.filter((node) => cluster.isAlive(node) && !node.stopped);
  return apis[Math.floor(Math.random() * apis.length)];
}

async function fetchWithin(url: string, init: RequestInit = {}, ms = 10_000): Promise<Response> {
  return fetch(url, { ...init, signal: AbortSignal.timeout(ms) });
}

export class Verifier {
  readonly verified = new Map<string, Verification>();
  private since = new Date(0);
  private stopped = false;

  constructor(
    private readonly cluster: Cluster,
    private readonly store: PostgresStore,
    private readonly ledger: Ledger,
    private readonly accounts: Account[],
    private readonly scratch: string,
  ) {}

  stop(): void {
    this.stopped = true;
  }

  /** Rounds until stop(); each round is bounded by its requests' deadlines. */
  async run(): Promise<void> {
    for (let round = 0; round < 1_000_000 && !this.stopped; round++) {
      await this.round().catch(() => undefined);
      await sleep(1500);
    }
  }

  /** Verifies every finished job not verified yet (also called once more after the drain). */
  async round(): Promise<void> {
    const started = new Date();
    const finished = await this.store.jobs.jobs.listFinishedSince(new Date(this.since.getTime() - 60_000));
    const due = finished.filter((job) => job.status === 'done' && !this.verified.get(job.id)?.ok);
    for (let i = 0; i < due.length; i += 8)
      await Promise.all(due.slice(i, i + 8).map((job) => this.verify(job.id, job.accountId)));
    this.since = started;
  }

  private async verify(jobId: string, accountId: string): Promise<void> {
    const account = this.accounts.find((a) => a.accountId === accountId);
    const entry = this.verified.get(jobId) ?? { ok: false, tries: 0 };
    this.verified.set(jobId, entry);
    if (!account) {
      entry.reason = 'job of an account the soak did not make';
      return;
    }
    // A fault (an API killed or stalled, S3 away) fails one try: the next goes to a live API at once, so an output is
    // fetched well within its lifetime (RETENTION_S) once the fault is over; the round after retries again.
    for (let attempt = 0; attempt < 3 && !entry.ok && entry.tries !== Number.POSITIVE_INFINITY; attempt++) {
      const api = liveApi(this.cluster);
      if (!api) return;
      entry.tries++;
      await this.download(api, account, jobId, entry);
      if (!entry.ok && entry.tries !== Number.POSITIVE_INFINITY) await sleep(500);
    }
  }

  private async download(api: SoakNode, account: Account, jobId: string, entry: Verification): Promise<void> {
    try {
      const poll = await fetchWithin(`${api.url}/api/v1/jobs/${jobId}`, {
        headers: { authorization: `Bearer ${account.key}` },
      });
      const body = (await poll.json()) as { status?: string; downloadUrl?: string };
      if (poll.status !== 200 || body.status !== 'done' || !body.downloadUrl) {
        entry.reason = `poll answered ${poll.status} ${JSON.stringify(body).slice(0, 200)}`;
        return;
      }
      const link = new URL(body.downloadUrl);
      const file = await fetchWithin(`${api.url}${link.pathname}`);
      const data = Buffer.from(await file.arrayBuffer());
      if (file.status !== 200) {
        entry.reason = `download answered ${file.status}`;
        return;
      }
      const filename = /filename="([^"]+)"/.exec(file.headers.get('content-disposition') ?? '')?.[1] ?? '';
      const expected = this.ledger.expected.get(stemOf(filename));
      if (!expected) {
        entry.reason = `output ${filename} matches no input the soak sent`;
        return;
      }
      const mismatch = await checkOutput(data, expected, this.scratch);
      entry.ok = mismatch === null;
      entry.reason = mismatch ?? undefined;
      // A wrong output is final, not retried.
      if (mismatch) entry.tries = Number.POSITIVE_INFINITY;
    } catch (err) {
      entry.reason = `no answer: ${(err as Error).message}`;
    }
  }
}

/** A job's state in one line, for a violation. */
function describe(job: JobRecord): string {
  const steps = job.pipeline ? ` steps ${job.pipeline.steps.map((step) => step.status).join('/')}` : '';
  return (
    `${job.pluginId} ${job.status}${job.error ? ` "${job.error}"` : ''} attempts ${job.attempts} cost ` +
    `${job.creditCost} refunded ${job.refunded}${steps}`
  );
}

export interface CheckInputs {
  cluster: Cluster;
  store: PostgresStore;
  ledger: Ledger;
  accounts: Account[];
  verifier: Verifier;
  receiver: WebhookReceiver;
  retentionMs: number;
  /** Staged uploads no job holds are swept once this old (upload-time.ts), later than the retention. */
  uploadOrphanAgeMs: number;
  purgeEveryMs: number;
}

export interface CheckResult {
  violations: string[];
  jobs: JobRecord[];
  summary: Record<string, number>;
}

/** Every job of the soak's accounts, from the store. */
export async function allJobs(store: PostgresStore, accounts: Account[]): Promise<JobRecord[]> {
  const jobs: JobRecord[] = [];
  for (const account of accounts) {
    for (let offset = 0; offset < 1_000_000; offset += 500) {
      const page = await store.jobs.jobs.listByAccount(account.accountId, 500, offset);
      jobs.push(...page.jobs);
      if (page.jobs.length < 500) break;
    }
  }
  return jobs;
}

export async function check(inputs: CheckInputs): Promise<CheckResult> {
  const { cluster, store, ledger, accounts, verifier, receiver } = inputs;
  const violations: string[] = [];
  const violate = (line: string) => violations.push(line);
  const jobs = await allJobs(store, accounts);
  const byId = new Map(jobs.map((job) => [job.id, job]));

  // 1. Every accepted job exists and is done or failed; none stuck.
  for (const sub of ledger.submissions) {
    if (sub.outcome !== 'accepted') continue;
    if (sub.jobId && !byId.has(sub.jobId)) violate(`lost: accepted job ${sub.jobId} (${sub.kind}) is not in the store`);
    if (sub.batchId) {
      const batchJobs = await store.jobs.jobs.listByBatch(sub.batchId);
      if (batchJobs.length !== sub.files)
        violate(`lost: batch ${sub.batchId} accepted ${sub.files} files, the store has ${batchJobs.length} jobs`);
    }
  }
  for (const job of jobs)
    if (job.status !== 'done' && job.status !== 'failed') violate(`stuck: job ${job.id} (${describe(job)})`);

  // 2. Each done job: one output, downloaded and matching its input.
  for (const job of jobs) {
    if (job.status !== 'done') continue;
    const verification = verifier.verified.get(job.id);
    if (!verification) violate(`unverified: done job ${job.id} was never downloaded (${describe(job)})`);
    else if (!verification.ok) violate(`output: job ${job.id}: ${verification.reason} (${describe(job)})`);
    if (job.refunded) violate(`credits: done job ${job.id} was refunded`);
  }

  // 3. Credits: used = the costs of done jobs + the finished steps of failed pipelines; every failure refunded.
  for (const account of accounts) {
    const mine = jobs.filter((job) => job.accountId === account.accountId);
    const periods = new Set(mine.map((job) => job.creditPeriod));
    for (const period of periods) {
      let expected = 0;
      for (const job of mine.filter((j) => j.creditPeriod === period)) {
        if (job.status === 'done') expected += job.creditCost;
        else if (job.status === 'failed') {
          // A pipeline keeps what its finished steps cost: it owes nothing back when every step finished.
          const kept = (job.pipeline?.steps ?? [])
            .filter((step) => step.status === 'done')
            .reduce((sum, step) => sum + step.creditCost, 0);
          if (!job.refunded && kept < job.creditCost)
            violate(`credits: failed job ${job.id} was not refunded (${describe(job)})`);
          expected += kept;
        } else expected += job.creditCost;
      }
      const used = (await store.credits.usage.get(account.accountId, period)).used;
      if (used !== expected)
        violate(`credits: ${account.name} used ${used} in ${period}, the jobs account for ${expected}`);
    }
  }

  // Cancels: one answered 200 ends the job failed "Cancelled".
  for (const cancel of ledger.cancels) {
    const job = byId.get(cancel.jobId);
    if (!job) continue;
    if (cancel.status === 200 && !(job.status === 'failed' && /cancel/i.test(job.error ?? '')))
      violate(`cancel: job ${job.id} was cancelled (200) but ended ${describe(job)}`);
  }

  // 4. History agrees with the jobs.
  for (const account of accounts) {
    const api = liveApi(cluster);
    if (!api) {
      violate('history: no API answers');
      break;
    }
    const seen: string[] = [];
    let total = -1;
    for (let offset = 0; offset < 1_000_000; offset += 100) {
      const res = await fetchWithin(`${api.url}/api/v1/history?limit=100&offset=${offset}`, {
        headers: { authorization: `Bearer ${account.key}` },
      });
      const body = (await res.json()) as { total: number; hasMore: boolean; history: Array<{ jobId: string }> };
      if (res.status !== 200) {
        violate(`history: ${account.name} answered ${res.status}`);
        break;
      }
      total = body.total;
      seen.push(...body.history.map((record) => record.jobId));
      if (!body.hasMore) break;
    }
    const mine = jobs.filter((job) => job.accountId === account.accountId).map((job) => job.id);
    const inHistory = new Set(seen);
    const missing = mine.filter((id) => !inHistory.has(id));
    const extra = seen.filter((id) => !byId.has(id));
    if (total !== mine.length || missing.length || extra.length || seen.length !== inHistory.size)
      violate(
        `history: ${account.name} has ${total} records (${seen.length} listed, ${inHistory.size} distinct) for ` +
          `${mine.length} jobs; missing ${missing.slice(0, 3).join(',')}; extra ${extra.slice(0, 3).join(',')}`,
      );
  }

  // 5. Webhooks: every finished job's event at least once, every delivery of one event with the same webhook-id.
  const idsByEvent = new Map<string, Set<string>>();
  for (const delivery of receiver.deliveries) {
    const event = `${delivery.type} ${delivery.subject}`;
    const ids = idsByEvent.get(event) ?? new Set<string>();
    ids.add(delivery.webhookId);
    idsByEvent.set(event, ids);
  }
  for (const job of jobs) {
    if (job.status !== 'done' && job.status !== 'failed') continue;
    if (!idsByEvent.has(`job.${job.status} ${job.id}`)) violate(`webhook: job.${job.status} of ${job.id} never came`);
    const other = job.status === 'done' ? 'failed' : 'done';
    if (idsByEvent.has(`job.${other} ${job.id}`)) violate(`webhook: job.${other} came for ${job.status} job ${job.id}`);
  }
  for (const sub of ledger.submissions)
    if (sub.batchId && byId.size && !idsByEvent.has(`batch.done ${sub.batchId}`))
      violate(`webhook: batch.done of ${sub.batchId} never came`);
  for (const [event, ids] of idsByEvent)
    if (ids.size > 1) violate(`webhook: ${event} was delivered with ${ids.size} different webhook-ids`);
  for (const line of receiver.unverified) violate(`webhook: a delivery did not verify: ${line}`);

  // 6. Files: none in the bucket or a DATA_DIR past retention unless a live job references it.
  const now = Date.now();
  const tooOld = now - inputs.retentionMs - inputs.purgeEveryMs - 60_000;
  const uploadTooOld = now - inputs.uploadOrphanAgeMs - inputs.purgeEveryMs - 60_000;
  const referenced = new Set<string>();
  for (const job of jobs) {
    if (job.status === 'waiting' || job.status === 'active') for (const f of job.inputs) referenced.add(f.blobKey);
    if (job.output && job.outputExpiresAt && job.outputExpiresAt.getTime() > now) referenced.add(job.output.blobKey);
  }
  const objects = await listBucket(cluster);
  for (const object of objects) {
    if (referenced.has(object.key)) continue;
    if (object.modified < (object.key.startsWith('uploads/') ? uploadTooOld : tooOld))
      violate(`leftover: s3 ${object.key}, ${Math.round((now - object.modified) / 1000)} s old, no live job holds it`);
  }
  for (const job of jobs) {
    const outputs = objects.filter((o) => o.key.startsWith(`outputs/${job.id}.`));
    if (outputs.length > 1) violate(`output: job ${job.id} has ${outputs.length} outputs in the bucket`);
  }
  for (const node of cluster.nodes) {
    for (const file of await listFiles(node.dataDir)) {
      if (file.modified < tooOld)
        violate(
          `leftover: ${node.name} ${path.relative(node.dataDir, file.path)},` +
            ` ${Math.round((now - file.modified) / 1000)} s old`,
        );
    }
  }

  const summary: Record<string, number> = {
    accepted: ledger.submissions.filter((s) => s.outcome === 'accepted').length,
    refused: ledger.submissions.filter((s) => s.outcome === 'refused').length,
    unanswered: ledger.submissions.filter((s) => s.outcome === 'unknown').length,
    jobs: jobs.length,
    done: jobs.filter((j) => j.status === 'done').length,
    failed: jobs.filter((j) => j.status === 'failed').length,
    cancelled: jobs.filter((j) => j.status === 'failed' && /cancel/i.test(j.error ?? '')).length,
    retried: jobs.filter((j) => j.attempts > 1).length,
    webhookDeliveries: receiver.deliveries.length,
    bucketObjects: objects.length,
  };
  return { violations, jobs, summary };
}

async function listBucket(cluster: Cluster): Promise<Array<{ key: string; modified: number }>> {
  const client = new S3Client({
    endpoint: cluster.s3.endpoint,
    region: 'us-east-1',
    credentials: S3RVER_CREDENTIALS,
    forcePathStyle: true,
  });
  const objects: Array<{ key: string; modified: number }> = [];
  try {
    let token: string | undefined;
    for (let page = 0; page < 10_000; page++) {
      const answer = await client.send(new ListObjectsV2Command({ Bucket: cluster.bucket, ContinuationToken: token }));
      for (const item of answer.Contents ?? [])
        objects.push({ key: item.Key!, modified: item.LastModified?.getTime() ?? 0 });
      token = answer.NextContinuationToken;
      if (!token) break;
    }
  } finally {
    client.destroy();
  }
  return objects;
}

/** Files under a DATA_DIR that a node keeps for good (its secret, its lock): not left-overs. */
const KEPT = new Set(['api.lock', 'secret-key']);

async function listFiles(dir: string): Promise<Array<{ path: string; modified: number }>> {
  const found: Array<{ path: string; modified: number }> = [];
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  for (const entry of entries.slice(0, 100_000)) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    if (KEPT.has(path.relative(dir, file))) continue;
    const info = await stat(file).catch(() => null);
    if (info) found.push({ path: file, modified: info.mtimeMs });
  }
  return found;
}

/**
 * Processes that mention the soak's folder (engines run on their job's files there; sandbox processes inherit a
 * DATA_DIR in it) and descend from no live product process: orphans. PostgreSQL and s3rver are the soak's own.
 */
export async function orphanedProcesses(cluster: Cluster): Promise<string[]> {
  const live = new Set(cluster.livePids());
  const mine = new Set([process.pid]);
  const parents = new Map<number, number>();
  const mentions: Array<{ pid: number; command: string }> = [];
  for (const name of await readdir('/proc').catch(() => [] as string[])) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    const statText = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
    const ppid = Number(statText.slice(statText.lastIndexOf(')') + 2).split(' ')[1]);
    parents.set(pid, ppid);
    const command = (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).replaceAll('\0', ' ');
    const cwd = await readlink(`/proc/${pid}/cwd`).catch(() => '');
    // A sandbox process runs from the project's folder: the DATA_DIR it inherited names the soak's.
    const environ = await readFile(`/proc/${pid}/environ`, 'utf8').catch(() => '');
    if (command.includes(cluster.root) || cwd.startsWith(cluster.root) || environ.includes(`=${cluster.root}/`))
      mentions.push({ pid, command });
  }
  const orphans: string[] = [];
  for (const { pid, command } of mentions) {
    if (mine.has(pid) || /postgres|s3rver/.test(command)) continue;
    let owned = false;
    for (let at = pid, hops = 0; at > 1 && hops < 64; at = parents.get(at) ?? 0, hops++) {
      // A live product process's, or the soak's own (its pdftotext, its node processes).
      if (live.has(at) || at === process.pid) {
        owned = true;
        break;
      }
    }
    if (!owned) orphans.push(`${pid}: ${command.slice(0, 160)}`);
  }
  return orphans;
}

/**
 * Polls `remaining` until it is 0, for as long as it keeps falling: stops once it has not fallen for `stallMs`, or at
 * `capMs`. Answers what remained (a poll that failed, the store being away, counts as no progress).
 */
export async function whileProgressing(
  remaining: () => Promise<number>,
  stallMs: number,
  capMs: number,
): Promise<number> {
  const started = Date.now();
  let least = Number.POSITIVE_INFINITY;
  let progressAt = started;
  for (let round = 0; round < 1_000_000 && Date.now() - started < capMs; round++) {
    const left = await remaining().catch(() => null);
    if (left === 0) return 0;
    if (left !== null && left < least) {
      least = left;
      progressAt = Date.now();
    } else if (Date.now() - progressAt > stallMs) break;
    await sleep(2000);
  }
  return least;
}

/** Waits for every webhook the finished jobs owe, while they keep coming (whileProgressing). */
export async function waitForWebhooks(
  store: PostgresStore,
  accounts: Account[],
  receiver: WebhookReceiver,
  stallMs: number,
  capMs: number,
): Promise<void> {
  await whileProgressing(
    async () => {
      const jobs = await allJobs(store, accounts);
      const came = new Set(receiver.deliveries.map((d) => `${d.type} ${d.subject}`));
      return jobs.filter(
        (job) => (job.status === 'done' || job.status === 'failed') && !came.has(`job.${job.status} ${job.id}`),
      ).length;
    },
    stallMs,
    capMs,
  );
}
