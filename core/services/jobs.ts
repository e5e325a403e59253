/** Jobs: acceptance (every rule of POST /convert), status, history. */
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { DOWNLOAD_LINK_SECONDS, PLANS, creditCost, planAtLeast, type AcceptedJob, type FormatId, type History, type JobStatus } from '../../schema/index.js';
import { isSecretField, type Plugin } from '../contract/index.js';
import { parseOptions } from '../contract/options.js';
import type { Registry } from '../registry/index.js';
import type { JobRecord, Store } from '../store/types.js';
import type { Principal } from './accounts.js';
import type { Clock } from './clock.js';
import type { CreditService } from './credits.js';
import { ServiceError, badRequest, forbidden, notFound } from './errors.js';
import type { StagedUpload, UploadService } from './uploads.js';

/** Puts an accepted job on the queue (Agenda in production). */
export interface JobQueue {
  enqueue(jobId: string): Promise<void>;
}

/**
 * Secret options (passwords) live only in this process's memory until the job runs: never in
 * the store, the queue or a log. A job whose secret was lost (restart, other worker) fails
 * cleanly with a refund and asks the client to submit again.
 */
export class SecretVault {
  private readonly secrets = new Map<string, Record<string, unknown>>();
  put(jobId: string, values: Record<string, unknown>): void {
    if (Object.keys(values).length) this.secrets.set(jobId, values);
  }
  take(jobId: string): Record<string, unknown> | undefined {
    const values = this.secrets.get(jobId);
    this.secrets.delete(jobId);
    return values;
  }
}

export function secretFieldsOf(plugin: Plugin): string[] {
  return Object.entries(plugin.options.shape).filter(([, s]) => isSecretField(s as z.ZodType)).map(([k]) => k);
}

export interface ConvertRequest {
  upload: StagedUpload;
  to: string | undefined;
  op: string | undefined;
  /** Per-op fields as sent (strings from multipart, values from GraphQL/tRPC). */
  fields: Record<string, unknown>;
  fieldsAreStrings: boolean;
  viaApi: boolean;
}

export interface JobServiceConfig {
  publicUrl: string;
  /** How long uploads may live (spec: deleted within 1 hour). */
  retentionMs: number;
}

export class JobService {
  constructor(
    private readonly store: Store,
    private readonly registry: Registry,
    private readonly uploads: UploadService,
    private readonly credits: CreditService,
    private readonly queue: JobQueue,
    private readonly vault: SecretVault,
    private readonly clock: Clock,
    private readonly config: JobServiceConfig,
  ) {}

  /** Validate, charge and queue one conversion or tool op. The staged upload is consumed. */
  async accept(principal: Principal, request: ConvertRequest): Promise<AcceptedJob> {
    const { upload } = request;
    let job: JobRecord | undefined;
    try {
      const to = request.to?.trim().toLowerCase();
      if (!to) throw badRequest("Missing 'to': the output format, e.g. to=webp");
      const op = request.op?.trim() || undefined;
      const inputFormat = await this.uploads.identify(upload);
      const resolution = this.registry.resolve({ from: inputFormat, to: to === 'jpeg' ? 'jpg' : to, op });
      if (!resolution.ok) throw badRequest(resolution.error);
      const { plugin, output } = resolution;
      if (!planAtLeast(principal.account.plan, plugin.plan)) {
        throw forbidden(`${op ? `Op '${op}'` : plugin.title} requires the ${PLANS[plugin.plan].label} plan or higher`);
      }
      const parsed = parseOptions(plugin.options, request.fields, { fromStrings: request.fieldsAreStrings, operation: op ? `op '${op}'` : `${inputFormat} -> ${to}` });
      if (!parsed.ok) throw badRequest(parsed.error);
      const { stored, secret } = splitSecrets(plugin, parsed.value);

      const cost = creditCost({ format: inputFormat, bytes: upload.bytes }, plugin.creditWeight);
      const charge = await this.credits.charge(principal.account, cost);
      const now = this.clock.now();
      job = await this.store.jobs.create({
        id: randomUUID(),
        accountId: principal.account.id,
        kind: op ? 'tool' : 'convert',
        pluginId: plugin.id,
        op: op ?? null,
        inputFormat,
        outputFormat: output,
        options: stored,
        inputs: [{ blobKey: upload.blobKey, filename: upload.filename, format: inputFormat, bytes: upload.bytes }],
        creditCost: cost,
        creditPeriod: charge.period,
        viaApi: request.viaApi,
        createdAt: now,
        inputsExpireAt: new Date(now.getTime() + this.config.retentionMs),
      });
      this.vault.put(job.id, secret);
      await this.queue.enqueue(job.id);
      return { jobId: job.id, status: 'queued', creditCost: cost, creditsRemaining: charge.creditsRemaining, statusUrl: `/api/v1/jobs/${job.id}` };
    } catch (err) {
      if (job) {
        // The job could not be queued: it fails to start, so it is refunded.
        await this.store.jobs.fail(job.id, 'The job could not be queued; credits were refunded', this.clock.now());
        await this.credits.refund(job);
        this.vault.take(job.id);
      }
      await this.uploads.discard(upload);
      throw err;
    }
  }

  /** A job of this principal, or 404 (also for another holder's job: existence is not revealed). */
  async getOwned(principal: Principal, jobId: string): Promise<JobRecord> {
    const job = await this.store.jobs.get(jobId);
    if (!job || job.accountId !== principal.account.id) throw notFound('Job not found');
    return job;
  }

  async status(principal: Principal, jobId: string): Promise<JobStatus> {
    return this.present(await this.getOwned(principal, jobId));
  }

  /** The wire view of a job (shared by every surface). */
  present(job: JobRecord): JobStatus {
    switch (job.status) {
      case 'waiting':
      case 'active':
        return { status: job.status, progress: job.progress };
      case 'failed':
        return { status: 'failed', error: job.error ?? 'Conversion failed' };
      case 'done': {
        // The link lives 900 s from completion; once it has expired the job no longer offers one.
        const linkAlive = job.downloadToken && job.completedAt && this.clock.now().getTime() < job.completedAt.getTime() + DOWNLOAD_LINK_SECONDS * 1000;
        return {
          status: 'done',
          ...(linkAlive ? { downloadUrl: this.downloadUrl(job.downloadToken!), expiresIn: DOWNLOAD_LINK_SECONDS } : {}),
          ...(job.toolReport ? { toolReport: job.toolReport } : {}),
        };
      }
    }
  }

  downloadUrl(token: string): string {
    return `${this.config.publicUrl}/api/download/${token}`;
  }

  async history(principal: Principal, limit: number, offset: number): Promise<History> {
    const { total, jobs } = await this.store.jobs.listByAccount(principal.account.id, limit, offset);
    return {
      total,
      limit,
      offset,
      hasMore: offset + jobs.length < total,
      history: jobs.map((job) => ({ time: job.createdAt.toISOString(), conv: conversionLabel(job), jobId: job.id, viaApi: job.viaApi })),
    };
  }
}

function conversionLabel(job: JobRecord): string {
  const from = job.inputFormat.toUpperCase();
  return job.op ? `${job.op} (${from})` : `${from} to ${(job.outputFormat as FormatId).toUpperCase()}`;
}

function splitSecrets(plugin: Plugin, options: Record<string, unknown>) {
  const secretFields = new Set(secretFieldsOf(plugin));
  const stored: Record<string, unknown> = {};
  const secret: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options)) (secretFields.has(key) ? secret : stored)[key] = value;
  return { stored, secret };
}

