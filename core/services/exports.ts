/**
 * Export to S3-compatible storage (issue 27): `export: {type: "s3", ...}` on convert and
 * pipelines. When the job is done, its output streams from the blob store to the bucket as a
 * multipart upload (@aws-sdk/lib-storage: a few parts in memory at a time, up to 5 GB).
 *
 * The credentials are used for that job alone, like PDF passwords (job-policy.ts): they stay in
 * the memory of the process that accepted the job, which watches the job and uploads its output
 * once it is done (wherever it ran); they are never stored, logged or echoed. The store holds
 * the export's state (bucket, key, status, location, ETag, error). If that process stops first,
 * the export fails once the job is found finished without it ("credentials are never stored").
 *
 * The endpoint is an outbound destination like an import URL: https only, public addresses only
 * unless IMPORT_ALLOW_PRIVATE=1, metadata addresses never, and the connection goes to the
 * address checked.
 */
import http from 'node:http';
import https from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';
import { FORMATS, s3ExportSchema, type S3Export } from '../../schema/index.js';
import type { Logger } from '../contract/index.js';
import { describeIssue } from '../contract/options.js';
import type { BlobStore } from '../blobs/types.js';
import { DestinationRefused, parseDestinationUrl, pinnedLookup, resolveDestination, type DestinationPolicy } from '../engines/outbound.js';
import type { ExportRecord, JobRecord, Store } from '../store/types.js';
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

/** A checked export target: the request's fields and where its endpoint connects. */
export interface ExportTarget {
  spec: S3Export;
  endpoint: URL;
}

export class ExportService {
  /** Jobs whose export this process holds the credentials for. */
  private readonly running = new Set<Promise<void>>();
  private stopped = false;

  constructor(
    private readonly store: Store,
    private readonly blobs: BlobStore,
    private readonly log: Logger,
    private readonly policy: DestinationPolicy,
  ) {}

  /** 400 before anything is charged when the export cannot be used (shape, endpoint). */
  async check(raw: unknown): Promise<ExportTarget> {
    const value = jsonValue(raw, "'export' must be a JSON object: {\"type\": \"s3\", \"bucket\": ..., \"key\": ...}");
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

  /** Record the export as pending, then upload the job's output when it is done (in this process, in the background). */
  async start(jobId: string, target: ExportTarget): Promise<void> {
    const state: ExportRecord = { type: 's3', bucket: target.spec.bucket, key: target.spec.key, status: 'pending' };
    await this.store.jobs.setExport(jobId, state);
    const run = this.follow(jobId, target, state)
      .catch((err: Error) => this.log.error('export crashed', { jobId, error: err.message }))
      .finally(() => this.running.delete(run));
    this.running.add(run);
  }

  /** Stop following jobs (shutdown); exports under way finish. */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.running);
  }

  private async follow(jobId: string, target: ExportTarget, state: ExportRecord): Promise<void> {
    let job: JobRecord | null = null;
    while (!this.stopped) {
      job = await this.store.jobs.get(jobId);
      if (!job || job.status === 'done' || job.status === 'failed') break;
      await sleep(WATCH_POLL_MS);
    }
    if (!job || job.status !== 'done') {
      const why = !job || job.status === 'failed' ? 'the job did not finish' : 'the server stopped before the job finished; credentials are never stored';
      await this.store.jobs.setExport(jobId, { ...state, status: 'failed', error: `Not exported: ${why}` });
      return;
    }
    if (!job.output) {
      await this.store.jobs.setExport(jobId, { ...state, status: 'failed', error: 'Not exported: the job has no file output' });
      return;
    }
    await this.store.jobs.setExport(jobId, { ...state, status: 'uploading' });
    try {
      const { location, etag } = await this.upload(target, job.output.blobKey, FORMATS[job.output.format]?.mime ?? 'application/octet-stream');
      await this.store.jobs.setExport(jobId, { ...state, status: 'done', ...(location ? { location } : {}), ...(etag ? { etag } : {}) });
      this.log.info('export done', { jobId, bucket: state.bucket });
    } catch (err) {
      const error = s3Error(err);
      // The bucket and the S3 error only: never the request, which carries the credentials.
      this.log.warn('export failed', { jobId, bucket: state.bucket, error });
      await this.store.jobs.setExport(jobId, { ...state, status: 'failed', error });
    }
  }

  /** Stream one blob to the bucket as a multipart upload, connecting to the endpoint's checked address. */
  private async upload(target: ExportTarget, blobKey: string, contentType: string): Promise<{ location?: string; etag?: string }> {
    const { spec, endpoint } = target;
    // Checked again now: the address the upload connects to is the one this check returns.
    const destination = await resolveDestination(endpoint, this.policy, LABEL);
    // Loaded on the first export: the SDK is large, and most processes (the CLI, workers) never export.
    const [{ S3Client }, { Upload }] = await Promise.all([import('@aws-sdk/client-s3'), import('@aws-sdk/lib-storage')]);
    const agentOptions = { keepAlive: true, lookup: pinnedLookup(destination) };
    const client = new S3Client({
      region: spec.region,
      ...(spec.endpoint ? { endpoint: spec.endpoint } : {}),
      forcePathStyle: spec.forcePathStyle ?? Boolean(spec.endpoint),
      credentials: { accessKeyId: spec.accessKeyId, secretAccessKey: spec.secretAccessKey, ...(spec.sessionToken ? { sessionToken: spec.sessionToken } : {}) },
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
        params: { Bucket: spec.bucket, Key: spec.key, Body: this.blobs.read(blobKey), ContentType: contentType },
        partSize: PART_BYTES,
        queueSize: PARTS_IN_FLIGHT,
        leavePartsOnError: false,
      });
      const result = await upload.done();
      return { ...(result.Location ? { location: result.Location } : {}), ...(result.ETag ? { etag: result.ETag } : {}) };
    } finally {
      client.destroy();
    }
  }
}

/** "Code: message" of an S3 error (or of the connection that failed), safe to show the client. */
function s3Error(err: unknown): string {
  if (err instanceof DestinationRefused) return err.message;
  const e = err as { name?: string; Code?: string; message?: string; code?: string };
  const code = e?.Code ?? e?.name ?? e?.code ?? 'Error';
  const message = (e?.message ?? String(err)).replace(/\s+/g, ' ').slice(0, 300);
  return `${code}: ${message}`;
}
