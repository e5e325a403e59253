/**
 * Export to S3-compatible storage: `export: {type: "s3", ...}` on convert, pipelines
 * and batches (the batch's ZIP, once every job of it has finished). When the job is done, its output streams from the
 * blob store to the bucket as a multipart upload (@aws-sdk/lib-storage: a few parts in memory at a time, up to 5 GB).
 *
 * The credentials are used for that job alone, like PDF passwords (job-policy.ts): they stay in
 * the memory of the process that accepted the job, which watches the job and uploads its output
 * once it is done (wherever it ran); they are never stored, logged or echoed. The store holds
 * the export's state (bucket, key, status, location, ETag, error). If that process stops first,
 * the export fails once the job is found finished without it ("credentials are never stored").
 * If it dies (kill -9, power loss), its lease lapses: while an export is open its holder renews
 * `heldUntil` every third of EXPORT_LEASE_MS, and the maintenance sweep (any process, at start
 * and every minute) fails an open export whose lease has passed, naming why; the job's or
 * batch's own download link stays. It cannot be retried: nobody has the credentials any more.
 *
 * The endpoint is an outbound destination like an import URL: https only, public addresses only
 * unless IMPORT_ALLOW_PRIVATE=1, metadata addresses never, and the connection goes to the
 * address checked.
 */
import http from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { FORMATS, s3ExportSchema, type ExportStatus, type S3Export } from '../../schema/index.js';
import type { Logger } from '../contract/index.js';
import { describeIssue } from '../contract/options.js';
import type { BlobStore } from '../blobs/types.js';
import {
  DestinationRefused,
  parseDestinationUrl,
  pinnedLookup,
  resolveDestination,
  type DestinationPolicy,
} from '../engines/outbound.js';
import type { ExportRecord, JobsStore } from '../store/types.js';
import { badRequest, jsonValue } from './errors.js';

const LABEL = 'Export endpoint';
const WATCH_POLL_MS = 250;
/**
 * Parts of 6 MiB (S3's minimum is 5 MiB; 5 GB is some 800 parts, under the 10,000 allowed), 3 in
 * flight: some 20 MB of an export in memory whatever its size.
 */
const PART_BYTES = 6 * 1024 * 1024;
const PARTS_IN_FLIGHT = 3;
const REQUEST_TIMEOUT_MS = 120_000;
/** How long a holder vouches for an open export without renewing (it renews every third of it). */
export const EXPORT_LEASE_MS = 60_000;
export const ABANDONED_EXPORT =
  'Not exported: the server holding the export stopped before it finished, and credentials are never stored; ' +
  'the output can still be downloaded: submit the export again to retry';

/** A checked export target: the request's fields and where its endpoint connects. */
export interface ExportTarget {
  spec: S3Export;
  endpoint: URL;
}

/** What an export follows (a job, or a batch): where its state goes, and its output once finished. */
interface ExportSubject {
  /** Log label, e.g. { jobId }. */
  ids: Record<string, string>;
  save(state: ExportRecord): Promise<void>;
  /** null while it runs; then the body to upload, or why there is none. */
  outcome(): Promise<null | { why: string } | { body: () => Readable; contentType: string }>;
}

export class ExportService {
  /** Jobs whose export this process holds the credentials for. */
  private readonly running = new Set<Promise<void>>();
  /** The ids (job or batch) of those exports: never judged abandoned here, whatever their lease says. */
  private readonly held = new Set<string>();
  private stopped = false;

  private readonly jobsStore: JobsStore;

  constructor(
    ports: { jobs: JobsStore },
    private readonly blobs: BlobStore,
    private readonly log: Logger,
    private readonly policy: DestinationPolicy,
    private readonly leaseMs = EXPORT_LEASE_MS,
  ) {
    this.jobsStore = ports.jobs;
  }

  /**
   * Fail the open exports (pending or uploading) whose holder stopped renewing their lease: the
   * process that had the credentials died. Returns how many. Run by the maintenance sweep.
   */
  async failAbandoned(now = Date.now()): Promise<number> {
    let failed = 0;
    for (const repo of [this.jobsStore.jobs, this.jobsStore.batches]) {
      for (const open of await repo.listOpenExports()) {
        if (this.held.has(open.id)) continue;
        if (open.export.heldUntil && Date.parse(open.export.heldUntil) > now) continue;
        const { heldUntil: _lease, ...state } = open.export;
        await repo.setExport(open.id, { ...state, status: 'failed', error: ABANDONED_EXPORT });
        this.log.warn('export abandoned by its holder: failed', { id: open.id, bucket: state.bucket });
        failed++;
      }
    }
    return failed;
  }

  /** 400 before anything is charged when the export cannot be used (shape, endpoint). */
  async check(raw: unknown): Promise<ExportTarget> {
    const value = jsonValue(raw, '\'export\' must be a JSON object: {"type": "s3", "bucket": ..., "key": ...}');
    const parsed = s3ExportSchema.safeParse(value);
    if (!parsed.success) throw badRequest(`Invalid export ${describeIssue(parsed.error)}`);
    const spec = parsed.data;
    const rawEndpoint = spec.endpoint ?? `https://s3.${spec.region}.amazonaws.com`;
    try {
      const endpoint = parseDestinationUrl(rawEndpoint, this.policy, LABEL);
      await resolveDestination(endpoint, this.policy, LABEL);
      return { spec, endpoint };
    } catch (err) {
      throw err instanceof DestinationRefused ? badRequest(err.message) : err;
    }
  }

  /**
   * Record the export as pending, then upload the job's output when it is done (in this process, in the background).
   */
  async start(jobId: string, target: ExportTarget): Promise<void> {
    await this.begin(jobId, target, {
      ids: { jobId },
      save: (state) => this.jobsStore.jobs.setExport(jobId, state),
      outcome: async () => {
        const job = await this.jobsStore.jobs.get(jobId);
        if (job && (job.status === 'waiting' || job.status === 'active')) return null;
        if (job?.status !== 'done') return { why: 'the job did not finish' };
        const output = job.output;
        if (!output) return { why: 'the job has no file output' };
        return {
          body: () => this.blobs.read(output.blobKey),
          contentType: FORMATS[output.format]?.mime ?? 'application/octet-stream',
        };
      },
    });
  }

  /**
   * A batch's ZIP, uploaded once every job of it has finished (done or failed). `zip` builds it
   * then; it refuses (throws) when no job left an output.
   */
  async startBatch(batchId: string, target: ExportTarget, zip: () => Promise<Readable>): Promise<void> {
    await this.begin(batchId, target, {
      ids: { batchId },
      save: (state) => this.jobsStore.batches.setExport(batchId, state),
      outcome: async () => {
        const [batch, jobs] = await Promise.all([
          this.jobsStore.batches.get(batchId),
          this.jobsStore.jobs.listByBatch(batchId),
        ]);
        if (!batch) return { why: 'the batch is gone' };
        if (jobs.length < batch.total || jobs.some((j) => j.status === 'waiting' || j.status === 'active')) return null;
        if (!jobs.some((j) => j.status === 'done')) return { why: 'no job of the batch finished' };
        // Built now, before the upload starts, so that a refusal is the export's error, not the S3 client's.
        const body = await zip().catch((err: Error) => err);
        if (body instanceof Error) return { why: body.message };
        return { body: () => body, contentType: 'application/zip' };
      },
    });
  }

  private async begin(id: string, target: ExportTarget, subject: ExportSubject): Promise<void> {
    const state: ExportRecord = { type: 's3', bucket: target.spec.bucket, key: target.spec.key, status: 'pending' };
    const leased = new LeasedExport(subject, this.leaseMs, this.log);
    this.held.add(id);
    await leased.save(state);
    const run = this.follow(leased, target, state)
      .catch((err: Error) => this.log.error('export crashed', { ...subject.ids, error: err.message }))
      .finally(() => {
        leased.release();
        this.held.delete(id);
        this.running.delete(run);
      });
    this.running.add(run);
  }

  /** Stop following jobs (shutdown); exports under way finish. */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.running);
  }

  private async follow(subject: ExportSubject, target: ExportTarget, state: ExportRecord): Promise<void> {
    let outcome: Awaited<ReturnType<ExportSubject['outcome']>> = null;
    while (!this.stopped) {
      outcome = await subject.outcome();
      if (outcome) break;
      await sleep(WATCH_POLL_MS);
    }
    if (!outcome || 'why' in outcome) {
      const why = outcome
        ? outcome.why
        : `the server stopped before the ${'batchId' in subject.ids ? 'batch' : 'job'} finished; credentials are ` +
          `never stored`;
      await subject.save({ ...state, status: 'failed', error: `Not exported: ${why}` });
      return;
    }
    await subject.save({ ...state, status: 'uploading' });
    try {
      const { location, etag } = await this.upload(target, outcome.body(), outcome.contentType);
      await subject.save({ ...state, status: 'done', ...(location ? { location } : {}), ...(etag ? { etag } : {}) });
      this.log.info('export done', { ...subject.ids, bucket: state.bucket });
    } catch (err) {
      const error = s3Error(err);
      // The bucket and the S3 error only: never the request, which carries the credentials.
      this.log.warn('export failed', { ...subject.ids, bucket: state.bucket, error });
      await subject.save({ ...state, status: 'failed', error });
    }
  }

  /** Stream one blob to the bucket as a multipart upload, connecting to the endpoint's checked address. */
  private async upload(
    target: ExportTarget,
    body: Readable,
    contentType: string,
  ): Promise<{ location?: string; etag?: string }> {
    const { spec, endpoint } = target;
    // Checked again now: the address the upload connects to is the one this check returns.
    const destination = await resolveDestination(endpoint, this.policy, LABEL);
    // Loaded on the first export: the SDK is large, and most processes (the CLI, workers) never export.
    const [{ S3Client }, { Upload }] = await Promise.all([
      import('@aws-sdk/client-s3'),
      import('@aws-sdk/lib-storage'),
    ]);
    const agentOptions = { keepAlive: true, lookup: pinnedLookup(destination) };
    const client = new S3Client({
      region: spec.region,
      ...(spec.endpoint ? { endpoint: spec.endpoint } : {}),
      forcePathStyle: spec.forcePathStyle ?? Boolean(spec.endpoint),
      credentials: {
        accessKeyId: spec.accessKeyId,
        secretAccessKey: spec.secretAccessKey,
        ...(spec.sessionToken ? { sessionToken: spec.sessionToken } : {}),
      },
      requestHandler: {
        httpAgent: new http.Agent(agentOptions as http.AgentOptions),
        httpsAgent: new https.Agent(agentOptions as https.AgentOptions),
        requestTimeout: REQUEST_TIMEOUT_MS,
      },
      maxAttempts: 3,
    });
    try {
      const upload = new Upload({
        client,
        params: { Bucket: spec.bucket, Key: spec.key, Body: body, ContentType: contentType },
        partSize: PART_BYTES,
        queueSize: PARTS_IN_FLIGHT,
        leavePartsOnError: false,
      });
      const result = await upload.done();
      return {
        ...(result.Location ? { location: result.Location } : {}),
        ...(result.ETag ? { etag: result.ETag } : {}),
      };
    } finally {
      client.destroy();
    }
  }
}

/**
 * An export's states, saved in order; while it is open (pending, uploading) each save carries a
 * lease (`heldUntil`), renewed every third of it until a final state is saved or `release`.
 */
class LeasedExport implements ExportSubject {
  private saving: Promise<void> = Promise.resolve();
  private current: ExportRecord | undefined;
  private readonly renewal: NodeJS.Timeout;
  readonly ids: Record<string, string>;
  readonly outcome: ExportSubject['outcome'];

  constructor(
    private readonly subject: ExportSubject,
    private readonly leaseMs: number,
    private readonly log: Logger,
  ) {
    this.ids = subject.ids;
    this.outcome = () => subject.outcome();
    this.renewal = setInterval(() => {
      if (this.current)
        this.save(this.current).catch((err: Error) =>
          this.log.warn('export lease not renewed', { ...this.ids, error: err.message }),
        );
    }, leaseMs / 3);
    this.renewal.unref();
  }

  save(state: ExportRecord): Promise<void> {
    const { heldUntil: _old, ...plain } = state;
    const open = plain.status === 'pending' || plain.status === 'uploading';
    this.current = open ? plain : undefined;
    if (!open) clearInterval(this.renewal);
    const record = open ? { ...plain, heldUntil: new Date(Date.now() + this.leaseMs).toISOString() } : plain;
    const next = this.saving.catch(() => undefined).then(() => this.subject.save(record));
    this.saving = next;
    return next;
  }

  release(): void {
    this.current = undefined;
    clearInterval(this.renewal);
  }
}

/** The export as a status shows it: its state, never the target's fields or credentials. */
export function presentExport({ status, location, etag, error }: ExportRecord): ExportStatus {
  return { status, ...(location ? { location } : {}), ...(etag ? { etag } : {}), ...(error ? { error } : {}) };
}

/** "Code: message" of an S3 error (or of the connection that failed), safe to show the client. */
function s3Error(err: unknown): string {
  if (err instanceof DestinationRefused) return err.message;
  const e = err as { name?: string; Code?: string; message?: string; code?: string };
  const code = e?.Code ?? e?.name ?? e?.code ?? 'Error';
  const message = (e?.message ?? String(err)).replace(/\s+/g, ' ').slice(0, 300);
  return `${code}: ${message}`;
}
