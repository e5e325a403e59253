/** Jobs: acceptance (every rule of POST /convert), status, history. */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  DOWNLOAD_LINK_SECONDS,
  creditCost,
  type AcceptedJob,
  type FormatId,
  type History,
  type JobStatus,
  type PipelineStepStatus,
} from '../../schema/index.js';
import type { Plugin } from '../contract/index.js';
import { parseOptions } from '../contract/options.js';
import type { Registry } from '../registry/index.js';
import type { JobQueue, LocalJobs } from '../queue/types.js';
import type { JobRecord, JobsStore, JobView, PipelineRecord } from '../store/types.js';
import { recordJobAccepted } from '../telemetry/metrics.js';
import type { Principal } from './accounts.js';
import type { Clock } from './clock.js';
import type { CreditService } from './credits.js';
import type { DownloadLinks } from './download-links.js';
import { badRequest, conflict, notFound } from './errors.js';
import { presentExport } from './exports.js';
import { requireFeature, requirePlan } from './plan-gates.js';
import { parseOp, parseTarget } from './targets.js';
import { NOT_QUEUED, splitSecrets, type SecretVault } from './job-policy.js';
import type { JobEvents, RequestWebhooks } from './webhooks.js';
import { checkWork } from './work-limits.js';
import type { FinishedJobs } from './finished-jobs.js';
import { storedInput, type StagedUpload, type UploadService } from './uploads.js';

export interface ConvertRequest {
  upload: StagedUpload;
  /** The wire's `to`, as sent: parsed here into the target (targets.ts). */
  to: string | undefined;
  op: string | undefined;
  /** Per-op fields as sent (strings from multipart, values from GraphQL/tRPC). */
  fields: Record<string, unknown>;
  fieldsAreStrings: boolean;
  /** The plugin the fields were written for (GraphQL's ConvertOptions): refused when another plugin runs the job. */
  optionsFor?: string | undefined;
  viaApi: boolean;
  batchId?: string;
  /** Beyond the spec: where to push this job's event (signed with the account's default secret). */
  webhookUrl?: string | undefined;
}

/** A ConvertRequest whose `to` and `op` are parsed: `target` is '' when an op leaves it out. */
export type ParsedConvertRequest = Omit<ConvertRequest, 'to' | 'op'> & { target: string; op: string | undefined };

/** The op of the PDF merge plugin, served by POST /api/pdf/merge only. */
export const MERGE_OP = 'merge-pdf';

/** The error of a cancelled job (the spec's four states stay: a cancelled job is `failed`). */
export const CANCELLED = 'Cancelled';

export interface RunCanceller {
  cancel(jobId: string): void;
}

export interface JobServiceConfig {
  publicUrl: string;
  /** How long uploads may live (spec: deleted within 1 hour). */
  retentionMs: number;
}

export class JobService {
  private readonly jobsStore: JobsStore;

  constructor(
    ports: { jobs: JobsStore },
    private readonly registry: Registry,
    private readonly uploads: UploadService,
    private readonly credits: CreditService,
    private readonly jobQueue: JobQueue,
    private readonly localJobs: LocalJobs,
    private readonly vault: SecretVault,
    private readonly clock: Clock,
    private readonly config: JobServiceConfig,
    private readonly links: DownloadLinks,
    private readonly webhooks?: RequestWebhooks & Partial<JobEvents>,
    /** Stops a run of this process at once (other processes' runners notice within a second). */
    private readonly runs?: RunCanceller,
    /** Jobs this process finishes: a wait served here ends as the job does. */
    private readonly finishedJobs?: FinishedJobs,
  ) {
    this.jobsStore = ports.jobs;
  }

  /** Validate, charge and queue one conversion or tool op. The staged upload is consumed. */
  async accept(principal: Principal, { to, op, ...request }: ConvertRequest): Promise<AcceptedJob> {
    let parsed: { target: string; op: string | undefined };
    try {
      const opName = parseOp(op);
      // An op may leave `to` out where its plugin allows it (structure, chunk); the registry decides.
      parsed = { target: opName && !to?.trim() ? '' : parseTarget(to), op: opName };
    } catch (err) {
      await this.uploads.discard(request.upload);
      throw err;
    }
    return this.acceptParsed(principal, { ...request, ...parsed });
  }

  /** `accept` with `to` and `op` parsed already (a batch parses them once for all its files). */
  async acceptParsed(principal: Principal, request: ParsedConvertRequest): Promise<AcceptedJob> {
    const { upload, op } = request;
    try {
      const inputFormat = await this.uploads.identify(upload);
      const resolution = this.registry.resolve({ from: inputFormat, target: request.target, op });
      if (!resolution.ok) throw badRequest(resolution.error);
      const { plugin, target } = resolution;
      const operation = op ? `op '${op}'` : `${inputFormat} -> ${target}`;
      if ((plugin.limits.inputs?.min ?? 1) > 1)
        throw badRequest(`${plugin.title} takes several files: use its own endpoint`);
      if (request.optionsFor !== undefined && request.optionsFor !== plugin.id)
        throw badRequest(`The options are for ${request.optionsFor}, but ${operation} is run by ${plugin.id}`);
      if (op) requireFeature(principal.account, 'tool-ops');
      requirePlan(principal.account, plugin.plan, op ? `Op '${op}'` : plugin.title);
      const options = this.parse(plugin, request.fields, request.fieldsAreStrings, operation);
      const webhookUrl = await this.checkWebhook(principal, request.webhookUrl);
      return await this.queue(principal, {
        plugin,
        kind: op ? 'tool' : 'convert',
        op: op ?? null,
        inputFormat,
        target,
        options,
        files: [{ upload, format: inputFormat }],
        cost: creditCost({ format: inputFormat, bytes: upload.bytes }, plugin.creditWeight),
        viaApi: request.viaApi,
        batchId: request.batchId ?? null,
        webhookUrl,
      });
    } catch (err) {
      await this.uploads.discard(upload);
      throw err;
    }
  }

  /** The most PDFs one merge takes: the merge plugin's own limit (0 when none is available). */
  maxMergeFiles(): number {
    const resolution = this.registry.resolve({ from: 'pdf', target: 'pdf', op: MERGE_OP });
    return resolution.ok ? (resolution.plugin.limits.inputs?.max ?? 1) : 0;
  }

  /** Checked before the uploads are read: 403 below Pro; returns how many PDFs a merge takes. */
  admitMerge(principal: Principal): number {
    return this.mergePlugin(principal).limits.inputs?.max ?? 1;
  }

  private mergePlugin(principal: Principal): Plugin {
    requireFeature(principal.account, 'merge');
    const resolution = this.registry.resolve({ from: 'pdf', target: 'pdf', op: MERGE_OP });
    if (!resolution.ok) throw badRequest(resolution.error);
    return resolution.plugin;
  }

  /** POST /api/pdf/merge: two or more PDFs merged in the order sent, charged by total size. */
  async acceptMerge(
    principal: Principal,
    uploads: StagedUpload[],
    viaApi: boolean,
    webhookUrl?: string,
  ): Promise<AcceptedJob> {
    try {
      const plugin = this.mergePlugin(principal);
      const { min, max } = plugin.limits.inputs ?? { min: 2, max: 2 };
      if (uploads.length < min) throw badRequest(`Send at least ${min} PDFs as 'files'`);
      if (uploads.length > max) throw badRequest(`At most ${max} PDFs per merge`);
      // PDFs, and the office files the merge plugin converts to PDF first.
      const formats: FormatId[] = [];
      for (const upload of uploads) {
        const format = await this.uploads.identify(upload);
        if (!plugin.inputs.includes(format))
          throw badRequest(`${upload.filename} is not a PDF (nor an office file, which the merge converts first)`);
        formats.push(format);
      }
      const bytes = uploads.reduce((sum, u) => sum + u.bytes, 0);
      const checkedUrl = await this.checkWebhook(principal, webhookUrl);
      return await this.queue(principal, {
        plugin,
        kind: 'merge',
        op: MERGE_OP,
        inputFormat: 'pdf',
        target: 'pdf',
        options: this.parse(plugin, {}, false, 'merge'),
        files: uploads.map((upload, i) => ({ upload, format: formats[i]! })),
        cost: creditCost({ format: 'pdf', bytes }, plugin.creditWeight),
        viaApi,
        webhookUrl: checkedUrl,
      });
    } catch (err) {
      await this.uploads.discard(...uploads);
      throw err;
    }
  }

  /** A per-request webhookUrl, checked (plan, address, default secret) before anything is charged. */
  async checkWebhook(principal: Principal, url: string | undefined): Promise<string | undefined> {
    if (url === undefined) return undefined;
    if (!this.webhooks) throw badRequest('webhookUrl is not available on this server');
    return this.webhooks.check(principal, url);
  }

  private parse(plugin: Plugin, fields: Record<string, unknown>, fromStrings: boolean, operation: string) {
    const parsed = parseOptions(plugin.options, fields, { fromStrings, operation });
    if (!parsed.ok) throw badRequest(parsed.error);
    return parsed.value;
  }

  /**
   * Charge, record and enqueue a validated job (every acceptance ends here; pipelines too, with
   * their steps). A job that cannot be queued is failed and refunded.
   */
  async queue(
    principal: Principal,
    spec: {
      plugin: Plugin;
      kind: JobRecord['kind'];
      op: string | null;
      inputFormat: FormatId;
      target: FormatId;
      options: Record<string, unknown>;
      files: Array<{ upload: StagedUpload; format: FormatId }>;
      cost: number;
      viaApi: boolean;
      batchId?: string | null;
      webhookUrl?: string | undefined;
      pipeline?: PipelineRecord;
      /** A pipeline's last step's password (its steps are stored without it). */
      secrets?: Record<string, unknown>;
    },
  ): Promise<AcceptedJob> {
    const measured = await this.uploads.measureWork(spec.plugin, spec.files);
    checkWork(
      spec.plugin,
      spec.op ? `op '${spec.op}'` : spec.plugin.title,
      measured,
      spec.files.length > 1 ? 'this job' : spec.files[0]!.upload.filename,
    );
    const split = splitSecrets(spec.plugin, spec.options);
    const stored = split.stored;
    const secret = { ...split.secret, ...spec.secrets };
    // Last, just before the record: from here the job holds the files (the orphan sweep spares them).
    this.uploads.checkStagedInTime(spec.files.map(({ upload }) => upload));
    const now = this.clock.now();
    const { job, creditsRemaining } = await this.credits.chargeAndRecord(principal.account, {
      id: randomUUID(),
      accountId: principal.account.id,
      batchId: spec.batchId ?? null,
      kind: spec.kind,
      pluginId: spec.plugin.id,
      op: spec.op,
      inputFormat: spec.inputFormat,
      target: spec.target,
      options: stored,
      inputs: spec.files.map(({ upload, format }) => storedInput(upload, format)),
      creditCost: spec.cost,
      viaApi: spec.viaApi,
      createdAt: now,
      inputsExpireAt: new Date(now.getTime() + this.config.retentionMs),
      ...(spec.pipeline ? { pipeline: spec.pipeline } : {}),
    });
    // Recorded before the job can run, so its event finds it.
    if (spec.webhookUrl) await this.webhooks?.record(job.id, principal.account.id, spec.webhookUrl);
    if (Object.keys(secret).length) {
      this.vault.put(job.id, secret);
      this.localJobs.start(job.id);
      recordJobAccepted(job.pluginId, principal.account.plan, spec.cost);
      return this.accepted(job.id, spec.cost, creditsRemaining);
    }
    try {
      await this.jobQueue.enqueue({ id: job.id, pluginId: job.pluginId });
    } catch (err) {
      // The job failed to start: it is refunded (spec: side effects).
      await this.credits.failJob(job.id, NOT_QUEUED);
      throw err;
    }
    recordJobAccepted(job.pluginId, principal.account.plan, spec.cost);
    return this.accepted(job.id, spec.cost, creditsRemaining);
  }

  private accepted(jobId: string, creditCost: number, creditsRemaining: number): AcceptedJob {
    return { jobId, status: 'queued', creditCost, creditsRemaining, statusUrl: `/api/v1/jobs/${jobId}` };
  }

  /** A job of this principal, or 404 (`owned`). */
  async getOwned(principal: Principal, jobId: string): Promise<JobRecord> {
    return owned(principal, await this.jobsStore.jobs.get(jobId));
  }

  /**
   * DELETE /api/v1/jobs/{id}: a waiting or active job ends `failed` with "Cancelled" and its
   * credits back (a free try is given back); an active run is stopped in its sandbox with its
   * engines. Idempotent: a cancelled job answers the same again. A job that finished otherwise
   * is a 409; another holder's job is a 404.
   */
  async cancel(principal: Principal, jobId: string): Promise<JobStatus> {
    const job = await this.getOwned(principal, jobId);
    const finished = (ended: JobRecord) => {
      if (ended.status === 'failed' && ended.error === CANCELLED) return this.present(ended);
      throw conflict(`Job already finished (${ended.status}): there is nothing to cancel`);
    };
    if (job.status === 'done' || job.status === 'failed') return finished(job);
    // Its credits (or free try) come back in the same write as the cancel. It may have ended since the read above
    // (done, failed, or cancelled by another request): then it is answered as ended.
    if (!(await this.credits.failJob(job.id, CANCELLED)))
      return finished((await this.jobsStore.jobs.get(job.id)) ?? job);
    this.runs?.cancel(job.id);
    // A waiting job never runs now: its uploads go here (an active run's runner deletes them when it stops).
    if (job.status === 'waiting') {
      await Promise.all(job.inputs.map((file) => this.uploads.discardKey(file.blobKey)));
      if (job.kind !== 'extract') await this.jobsStore.jobs.clearInputs(job.id);
    }
    await this.webhooks?.jobFinished?.(job.id);
    return this.present((await this.jobsStore.jobs.get(job.id)) ?? job);
  }

  async status(principal: Principal, jobId: string): Promise<JobStatus> {
    return this.present(owned(principal, await this.jobsStore.jobs.view(jobId)));
  }

  /** How often `watch` reads the store: the store is shared by every process, so it is polled. */
  private static readonly WATCH_POLL_MS = 250;

  /**
   * The job now, then every change, ending after done or failed (the push surfaces: GraphQL
   * `jobUpdated`, tRPC `jobs.watch`). Each read is `status`, so the first one fails with 404
   * for an unknown or foreign job and every event is the poll endpoint's view. Ends when the
   * consumer returns, or quietly when `signal` aborts (the subscriber went away).
   */
  async *watch(principal: Principal, jobId: string, signal?: AbortSignal): AsyncGenerator<JobStatus> {
    let sent: string | undefined;
    for (;;) {
      // A job this process finishes wakes the watch at once (the store is read again).
      const finishedHere = this.finishedJobs?.next(jobId);
      try {
        const current = await this.status(principal, jobId);
        const snapshot = JSON.stringify(current);
        if (snapshot !== sent) {
          sent = snapshot;
          yield current;
        }
        if (current.status === 'done' || current.status === 'failed') return;
        const poll = new AbortController();
        await Promise.race([
          sleep(JobService.WATCH_POLL_MS, undefined, {
            signal: signal ? AbortSignal.any([signal, poll.signal]) : poll.signal,
          }).catch(() => {}),
          finishedHere?.finished,
        ]);
        poll.abort();
      } finally {
        finishedHere?.cancel();
      }
      if (signal?.aborted) return;
    }
  }

  /**
   * `Prefer: wait=N` (RFC 7240): the job's final status if it finishes within `ms`, else
   * undefined (the caller answers as usual).
   */
  async waitFor(principal: Principal, jobId: string, ms: number): Promise<JobStatus | undefined> {
    for await (const status of this.watch(principal, jobId, AbortSignal.timeout(ms))) {
      if (status.status === 'done' || status.status === 'failed') return status;
    }
    return undefined;
  }

  /** The wire view of a job (shared by every surface). */
  present(job: JobView): JobStatus {
    const steps = {
      ...(job.pipeline ? { steps: presentSteps(job, job.pipeline) } : {}),
      ...(job.export ? { export: presentExport(job.export) } : {}),
    };
    switch (job.status) {
      case 'waiting':
      case 'active':
        return { status: job.status, progress: job.progress, ...steps };
      case 'failed':
        return { status: 'failed', error: job.error ?? 'Conversion failed', ...steps };
      case 'done': {
        // The link lives 900 s from completion; once it has expired the job no longer offers one.
        const downloadUrl = this.links.jobUrl(job);
        return {
          status: 'done',
          ...(downloadUrl ? { downloadUrl, expiresIn: DOWNLOAD_LINK_SECONDS } : {}),
          ...(job.toolReport ? { toolReport: job.toolReport } : {}),
          ...steps,
          ...(job.result ? { result: job.result } : {}),
        };
      }
    }
  }

  async history(principal: Principal, limit: number, offset: number): Promise<History> {
    const { total, jobs } = await this.jobsStore.jobs.listByAccount(principal.account.id, limit, offset);
    return {
      total,
      limit,
      offset,
      hasMore: offset + jobs.length < total,
      history: jobs.map((job) => ({
        time: job.createdAt.toISOString(),
        conv: conversionLabel(job),
        jobId: job.id,
        viaApi: job.viaApi,
      })),
    };
  }
}

/** The job if the principal's account owns it, or 404 (also for another holder's job: existence is not revealed). */
function owned<Job extends { accountId: string }>(principal: Principal, job: Job | null): Job {
  if (!job || job.accountId !== principal.account.id) throw notFound('Job not found');
  return job;
}

/**
 * Each step as the client named it, with its state; the active step's progress from the job's (the steps share it
 * evenly).
 */
function presentSteps(job: JobView, pipeline: PipelineRecord): PipelineStepStatus[] {
  const count = pipeline.steps.length;
  return pipeline.steps.map((step, index) => ({
    index,
    ...(step.extract
      ? { extract: step.extract }
      : { ...(step.to ? { to: step.to } : {}), ...(step.op ? { op: step.op } : {}) }),
    // A step still marked active in a job that has finished was stopped with it.
    status: step.status === 'active' && job.status === 'failed' ? 'failed' : step.status,
    progress:
      step.status === 'done'
        ? 100
        : step.status === 'active'
          ? Math.max(0, Math.min(99, Math.round(job.progress * count - index * 100)))
          : 0,
  }));
}

function conversionLabel(job: JobRecord): string {
  const from = job.inputFormat.toUpperCase();
  return job.op ? `${job.op} (${from})` : `${from} to ${job.target.toUpperCase()}`;
}
