/**
 * Extraction tools (the extract plugins: parse-cv, file-search, pdf-to-markdown, and any loaded
 * with PLUGINS; transcribe has none installed): many files in, one JSON row per file out, read by
 * polling for 1 hour. Each tool's limits come from its manifest (capabilities.extractionTool).
 * Paid plans are charged per file; a non-paid key gets one free single-file call per tool (unless
 * the tool declares none), given back if that job fails.
 */
import { randomUUID } from 'node:crypto';
import {
  EXTRACTION_RESULT_SECONDS,
  PLANS,
  creditCost,
  isPaidPlan,
  planAtLeast,
  type batchAcceptedSchema,
  type ExtractionPoll,
  type PlanId,
} from '../../schema/index.js';
import type { z } from 'zod';
import type { Plugin } from '../contract/index.js';
import { parseOptions } from '../contract/options.js';
import type { Registry } from '../registry/index.js';
import type { Account, BatchRecord, CreditsStore, JobRecord, JobsStore, NewJob } from '../store/types.js';
import { recordJobAccepted } from '../telemetry/metrics.js';
import type { Principal } from './accounts.js';
import type { CapabilityService, ExtractionToolInfo } from './capabilities.js';
import type { Clock } from './clock.js';
import type { CreditService } from './credits.js';
import { ServiceError, badRequest, forbidden, notFound } from './errors.js';
import type { JobQueue } from '../queue/types.js';
import { requireFeature, requirePlan } from './plan-gates.js';
import { storedInput, type StagedUpload, type UploadService } from './uploads.js';
import { checkWork } from './work-limits.js';
import { NOT_QUEUED } from './job-policy.js';
import type { RequestWebhooks } from './webhooks.js';

type BatchAccepted = z.infer<typeof batchAcceptedSchema>;

export interface ExtractionRequest {
  uploads: StagedUpload[];
  fields: Record<string, unknown>;
  fieldsAreStrings: boolean;
  viaApi: boolean;
  /** Beyond the spec: where to push the extraction.done event. */
  webhookUrl?: string | undefined;
}

export class ExtractionService {
  private readonly jobsStore: JobsStore;
  private readonly creditsStore: CreditsStore;

  constructor(
    ports: { jobs: JobsStore; credits: CreditsStore },
    private readonly registry: Registry,
    private readonly capabilities: CapabilityService,
    private readonly uploads: UploadService,
    private readonly credits: CreditService,
    private readonly queue: JobQueue,
    private readonly clock: Clock,
    private readonly webhooks?: RequestWebhooks,
  ) {
    this.jobsStore = ports.jobs;
    this.creditsStore = ports.credits;
  }

  /**
   * Checked before any upload is read: the tool exists and is installed, the plan allows it (or
   * the trial is still free); returns how many files a request may carry.
   */
  admit(principal: Principal, tool: string): number {
    const { account } = principal;
    const info = this.tool(tool);
    const trial = isTrial(account, info);
    if (!trial) gate(account, info);
    this.plugin(tool);
    return trial ? 1 : info.maxFiles;
  }

  /** The refusal for a request with more files than admit() allows. */
  tooManyFiles(principal: Principal, tool: string): ServiceError {
    const info = this.tool(tool);
    return isTrial(principal.account, info)
      ? forbidden(`The free try of ${tool} takes one file; upgrade to send several`, 'trial_single_file')
      : badRequest(`At most ${info.maxFiles} files per ${tool} request`);
  }

  async accept(principal: Principal, tool: string, request: ExtractionRequest): Promise<BatchAccepted> {
    const { uploads } = request;
    let trialClaimed = false;
    /** Jobs made for this request, and how many of them were queued (those run whatever happens next). */
    const jobIds: string[] = [];
    let queued = 0;
    try {
      const max = this.admit(principal, tool);
      const plugin = this.plugin(tool);
      const info = this.tool(tool);
      const trial = isTrial(principal.account, info);
      if (uploads.length > max) throw this.tooManyFiles(principal, tool);
      const parsed = parseOptions(plugin.options, request.fields, {
        fromStrings: request.fieldsAreStrings,
        operation: tool,
      });
      if (!parsed.ok) throw badRequest(parsed.error);
      let webhookUrl: string | undefined;
      if (request.webhookUrl !== undefined) {
        if (!this.webhooks) throw badRequest('webhookUrl is not available on this server');
        webhookUrl = await this.webhooks.check(principal, request.webhookUrl);
      }
      if (trial) {
        trialClaimed = await this.creditsStore.trials.claim(principal.account.id, tool, this.clock.now());
        if (!trialClaimed) throw trialUsed(tool, info.plan);
      }

      const batchId = randomUUID();
      const errors: BatchRecord['errors'] = [];
      /** Credits each accepted file was charged (for the metrics once the batch is queued). */
      const costs = new Map<string, number>();
      for (const [index, upload] of uploads.entries()) {
        try {
          // Ids that sort in the order the files were sent, so rows keep that order.
          const jobId = `${batchId}-${String(index).padStart(3, '0')}`;
          jobIds.push(
            await this.acceptFile(
              principal,
              plugin,
              jobId,
              batchId,
              upload,
              parsed.value,
              trial,
              request.viaApi,
              costs,
            ),
          );
        } catch (err) {
          // A 503 (the server too slow to accept the request in time) is worth retrying whole, like a backend down.
          if (!(err instanceof ServiceError) || err.code === 'UNAVAILABLE') throw err;
          await this.uploads.discard(upload);
          errors.push({ filename: upload.filename, error: err.message });
        }
      }
      if (!jobIds.length) {
        const reason = errors.map((e) => `${e.filename}: ${e.error}`).join('; ');
        throw errors.every((e) => e.error === 'Insufficient API credits')
          ? new ServiceError('PAYMENT_REQUIRED', 'Insufficient API credits')
          : badRequest(`No file could be accepted: ${reason}`);
      }
      await this.jobsStore.batches.create({
        id: batchId,
        accountId: principal.account.id,
        tool,
        total: jobIds.length,
        errors,
        createdAt: this.clock.now(),
      });
      if (webhookUrl) await this.webhooks?.record(batchId, principal.account.id, webhookUrl);
      for (const jobId of jobIds) {
        await this.queue.enqueue({ id: jobId, pluginId: plugin.id });
        queued++;
      }
      for (const jobId of jobIds) recordJobAccepted(plugin.id, principal.account.plan, costs.get(jobId) ?? 0);
      return { batchId, total: jobIds.length, errors, statusUrl: `/api/${tool}/${batchId}` };
    } catch (err) {
      // The request failed after some of its jobs were made (the store or the queue not answering): the client has
      // no batch to follow, so those not queued fail now with their credits (or free try) back. A store that cannot
      // take even that leaves them waiting: the reconciler queues them, and their run fails on the discarded input.
      for (const jobId of jobIds.slice(queued)) await this.credits.failJob(jobId, NOT_QUEUED).catch(() => false);
      if (trialClaimed) await this.creditsStore.trials.release(principal.account.id, tool);
      await this.uploads.discard(...uploads);
      throw err;
    }
  }

  private async acceptFile(
    principal: Principal,
    plugin: Plugin,
    jobId: string,
    batchId: string,
    upload: StagedUpload,
    options: Record<string, unknown>,
    trial: boolean,
    viaApi: boolean,
    costs: Map<string, number>,
  ): Promise<string> {
    const format = await this.uploads.identify(upload);
    if (!plugin.inputs.includes(format)) throw badRequest(`${plugin.title} does not read .${format} files`);
    // Past the tool's work maximum (pages, seconds of media): this file's error, before any credit is spent.
    checkWork(plugin, plugin.op ?? plugin.id, await this.uploads.measureWork(plugin, [{ upload, format }]), 'the file');
    const cost = trial ? 0 : creditCost({ format, bytes: upload.bytes }, plugin.creditWeight);
    costs.set(jobId, cost);
    const now = this.clock.now();
    const job: Omit<NewJob, 'creditPeriod'> = {
      id: jobId,
      accountId: principal.account.id,
      batchId,
      kind: 'extract',
      pluginId: plugin.id,
      op: plugin.op ?? plugin.id,
      inputFormat: format,
      target: 'json',
      options,
      creditCost: cost,
      viaApi,
      inputs: [storedInput(upload, format)],
      // The rows show file names until the results expire; the uploads themselves go when the job ends.
      createdAt: now,
      inputsExpireAt: new Date(now.getTime() + EXTRACTION_RESULT_SECONDS * 1000),
    };
    // Just before the record: from here the job holds the file (the orphan sweep spares it).
    this.uploads.checkStagedInTime([upload]);
    // A free try is not charged (its claim is given back if the job fails); a paid file is charged with its job.
    if (trial) await this.jobsStore.jobs.create({ ...job, creditPeriod: '' });
    else await this.credits.chargeAndRecord(principal.account, job);
    return job.id;
  }

  /** GET /api/<tool>/{id}: 404 when unknown or older than an hour, 403 for another holder's batch. */
  async poll(principal: Principal, tool: string, batchId: string): Promise<ExtractionPoll> {
    const { summary } = this.tool(tool);
    const batch = await this.jobsStore.batches.get(batchId);
    if (!batch || batch.tool !== tool || this.expired(batch))
      throw notFound('Results not found or expired (they are kept for 1 hour)');
    if (batch.accountId !== principal.account.id) throw forbidden('This batch belongs to another account');
    const jobs = await this.jobsStore.jobs.listByBatch(batchId);
    const rows = jobs.map(toRow);
    const completed = rows.filter((r) => r.status === 'completed').length;
    const failed = rows.filter((r) => r.status === 'failed').length;
    return {
      done: completed + failed === batch.total,
      total: batch.total,
      completed,
      failed,
      rows,
      // The tool's declared totals (file-search: totalHits, the sum of the rows' count).
      ...Object.fromEntries(
        Object.entries(summary).map(([name, { sum }]) => [
          name,
          rows.reduce((total, row) => total + (typeof row[sum] === 'number' ? row[sum] : 0), 0),
        ]),
      ),
    };
  }

  private expired(batch: BatchRecord): boolean {
    return this.clock.now().getTime() >= batch.createdAt.getTime() + EXTRACTION_RESULT_SECONDS * 1000;
  }

  /** The tool's endpoint (400 for an unknown tool). */
  private tool(tool: string): ExtractionToolInfo {
    const info = this.capabilities.extractionTool(tool);
    if (!info)
      throw badRequest(
        `Unknown extraction tool '${tool}': use one of ${this.capabilities
          .extractionTools()
          .map((t) => t.tool)
          .join(', ')}`,
      );
    return info;
  }

  private plugin(tool: string): Plugin {
    const resolution = this.registry.extractor(tool);
    if (!resolution.ok) throw badRequest(resolution.error);
    return resolution.plugin;
  }
}

/** A Free key below the tool's plan, on a tool that gives a free try: one call, one file, no charge. */
function isTrial(account: Account, info: ExtractionToolInfo): boolean {
  return info.freeTrial && !isPaidPlan(account.plan) && !planAtLeast(account.plan, info.plan);
}

/** 403 below the tool's plan: the spec's tools name their plan feature, the others themselves. */
function gate(account: Account, info: ExtractionToolInfo): void {
  if (info.feature) requireFeature(account, info.feature);
  else requirePlan(account, info.plan, info.title);
}

function trialUsed(tool: string, plan: PlanId): ServiceError {
  return forbidden(`The free try of ${tool} has been used; upgrade to ${PLANS[plan].label} to continue`, 'trial_used');
}

function toRow(job: JobRecord): ExtractionPoll['rows'][number] {
  const base = { filename: job.inputs[0]?.filename ?? 'file' };
  switch (job.status) {
    case 'waiting':
      return { ...base, status: 'queued' };
    case 'active':
      return { ...base, status: 'processing' };
    case 'failed':
      return { ...base, status: 'failed', error: job.error ?? 'Extraction failed' };
    case 'done':
      // The service's own fields win over anything a plugin's row might carry.
      return { ...job.result, ...base, status: 'completed' };
  }
}
