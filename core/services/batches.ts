/**
 * Batch conversion: many files, one `to` (and optional op), one job per file charged per file,
 * one ZIP of the outputs when every job has finished.
 */
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import yazl from 'yazl';
import { PLANS, type batchAcceptedSchema, type batchStatusSchema } from '../../schema/index.js';
import type { z } from 'zod';
import type { BlobStore } from '../blobs/types.js';
import type { BatchRecord, JobRecord, JobsStore } from '../store/types.js';
import type { Principal } from './accounts.js';
import type { Clock } from './clock.js';
import { ServiceError, badRequest, forbidden, notFound } from './errors.js';
import { presentExport, type ExportService, type ExportTarget } from './exports.js';
import type { JobService } from './jobs.js';
import { requireFeature } from './plan-gates.js';
import { parseOp, parseTarget } from './targets.js';
import type { StagedUpload } from './uploads.js';
import type { JobEvents, RequestWebhooks } from './webhooks.js';

type BatchAccepted = z.infer<typeof batchAcceptedSchema>;
type BatchStatus = z.infer<typeof batchStatusSchema>;

export interface BatchRequest {
  uploads: StagedUpload[];
  to: string | undefined;
  op: string | undefined;
  fields: Record<string, unknown>;
  fieldsAreStrings: boolean;
  /** See ConvertRequest.optionsFor. */
  optionsFor?: string | undefined;
  viaApi: boolean;
  /** Beyond the spec: where to push the batch.done event. */
  webhookUrl?: string | undefined;
  /** Beyond the spec: the S3 export of the ZIP, as sent (a JSON string or an object); checked here. */
  export?: unknown;
}

export class BatchService {
  private readonly jobsStore: JobsStore;

  constructor(
    ports: { jobs: JobsStore },
    private readonly blobs: BlobStore,
    private readonly jobs: JobService,
    private readonly clock: Clock,
    private readonly publicUrl: string,
    private readonly webhooks?: RequestWebhooks & JobEvents,
    private readonly exports?: ExportService,
  ) {
    this.jobsStore = ports.jobs;
  }

  /** Checked before any upload is read: 403 below Pro; returns how many files the plan allows. */
  admit(principal: Principal): number {
    requireFeature(principal.account, 'batch');
    return PLANS[principal.account.plan].maxBatchFiles;
  }

  /** Accept each file on its own: a bad file is listed in `errors`, the others still run. */
  async accept(principal: Principal, request: BatchRequest): Promise<BatchAccepted> {
    const { uploads, webhookUrl: requestedUrl, export: requestedExport, to, op, ...common } = request;
    let webhookUrl: string | undefined;
    let exportTarget: ExportTarget | undefined;
    let parsed: { target: string; op: string | undefined };
    try {
      const max = this.admit(principal);
      if (uploads.length > max)
        throw badRequest(`At most ${max} files per batch on the ${PLANS[principal.account.plan].label} plan`);
      // Parsed once for the whole batch: a malformed field is the request's fault, not a file's.
      parsed = { target: parseTarget(to), op: parseOp(op) };
      if (requestedUrl !== undefined) {
        if (!this.webhooks) throw badRequest('webhookUrl is not available on this server');
        webhookUrl = await this.webhooks.check(principal, requestedUrl);
      }
      if (requestedExport !== undefined) {
        if (!this.exports) throw badRequest('export is not available on this server');
        exportTarget = await this.exports.check(requestedExport);
      }
    } catch (err) {
      await Promise.all(uploads.map((u) => this.blobs.delete(u.blobKey)));
      throw err;
    }
    const batchId = randomUUID();
    if (webhookUrl) await this.webhooks?.record(batchId, principal.account.id, webhookUrl);
    const errors: BatchRecord['errors'] = [];
    const refusals: ServiceError[] = [];
    let total = 0;
    for (const upload of uploads) {
      try {
        await this.jobs.acceptParsed(principal, { ...common, ...parsed, upload, batchId });
        total++;
      } catch (err) {
        if (!(err instanceof ServiceError)) throw err;
        errors.push({ filename: upload.filename, error: err.message });
        refusals.push(err);
      }
    }
    if (total === 0) {
      // Nothing to run: answer like a single conversion would (402 when credits were the reason).
      const allCredits = refusals.every((r) => r.code === 'PAYMENT_REQUIRED');
      throw allCredits
        ? refusals[0]!
        : badRequest(`No file could be accepted: ${errors.map((e) => `${e.filename}: ${e.error}`).join('; ')}`);
    }
    await this.jobsStore.batches.create({
      id: batchId,
      accountId: principal.account.id,
      tool: null,
      total,
      errors,
      createdAt: this.clock.now(),
    });
    if (exportTarget) await this.exports?.startBatch(batchId, exportTarget, () => this.zipOf(batchId));
    // Its jobs may all have finished already: their batch was not recorded yet when they did.
    await this.webhooks?.batchRecorded(batchId);
    return { batchId, total, errors, statusUrl: `/api/batch/${batchId}` };
  }

  /** 404 when unknown, 403 for another holder's batch (spec: "not your batch"). */
  private async owned(principal: Principal, batchId: string): Promise<{ batch: BatchRecord; jobs: JobRecord[] }> {
    const batch = await this.jobsStore.batches.get(batchId);
    if (!batch || batch.tool !== null) throw notFound('Batch not found');
    if (batch.accountId !== principal.account.id) throw forbidden('This batch belongs to another account');
    return { batch, jobs: await this.jobsStore.jobs.listByBatch(batchId) };
  }

  async status(principal: Principal, batchId: string): Promise<BatchStatus> {
    const { batch, jobs } = await this.owned(principal, batchId);
    const completed = jobs.filter((j) => j.status === 'done' || j.status === 'failed').length;
    const done = completed === batch.total;
    return {
      total: batch.total,
      completed,
      done,
      downloadUrl: done ? `${this.publicUrl}/api/batch/${batchId}/download` : null,
      ...(batch.export ? { export: presentExport(batch.export) } : {}),
    };
  }

  /**
   * DELETE /api/batch/{id}: every unfinished job of the batch is cancelled (failed "Cancelled",
   * refunded); finished ones keep their outputs. Idempotent; answers the batch's status.
   */
  async cancel(principal: Principal, batchId: string): Promise<BatchStatus> {
    const { jobs } = await this.owned(principal, batchId);
    for (const job of jobs)
      if (job.status === 'waiting' || job.status === 'active') await this.jobs.cancel(principal, job.id);
    return this.status(principal, batchId);
  }

  /** The outputs as one ZIP, streamed from the blob store (never assembled in memory or on disk). */
  async zip(principal: Principal, batchId: string): Promise<{ stream: Readable; filename: string }> {
    await this.owned(principal, batchId);
    return { stream: await this.zipOf(batchId), filename: `batch-${batchId.slice(0, 8)}.zip` };
  }

  /**
   * The ZIP of a batch's outputs (its download, its export); 404 until every job has finished or when none left an
   * output.
   */
  private async zipOf(batchId: string): Promise<Readable> {
    const batch = await this.jobsStore.batches.get(batchId);
    if (!batch) throw notFound('Batch not found');
    const jobs = await this.jobsStore.jobs.listByBatch(batchId);
    if (jobs.some((j) => j.status === 'waiting' || j.status === 'active') || jobs.length < batch.total)
      throw notFound('Batch is not ready yet');
    const outputs = [];
    for (const job of jobs) if (job.output && (await this.blobs.exists(job.output.blobKey))) outputs.push(job.output);
    if (!outputs.length) throw notFound('The batch has no outputs (they failed or have been deleted)');
    const zip = new yazl.ZipFile();
    const used = new Set<string>();
    for (const output of outputs) zip.addReadStream(this.blobs.read(output.blobKey), uniqueName(output.filename, used));
    zip.end();
    return zip.outputStream as Readable;
  }
}

/** "a.webp", then "a (2).webp" for a second file of the same name. */
function uniqueName(name: string, used: Set<string>): string {
  const dot = name.lastIndexOf('.');
  const [base, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
  let candidate = name;
  for (let n = 2; used.has(candidate); n++) candidate = `${base} (${n})${ext}`;
  used.add(candidate);
  return candidate;
}
