/**
 * The services: the only API the surfaces call. Built once by the composition root, which holds the whole store and
 * hands each service only the aggregates (core/store/ports/) it uses.
 */
import type { Logger } from '../contract/index.js';
import type { BlobStore } from '../blobs/types.js';
import type { Registry } from '../registry/index.js';
import type { Store } from '../store/types.js';
import { AccountService } from './accounts.js';
import { BatchService } from './batches.js';
import { CapabilityService } from './capabilities.js';
import { systemClock, type Clock } from './clock.js';
import { CreditService } from './credits.js';
import { DownloadLinks } from './download-links.js';
import { DownloadService } from './downloads.js';
import { ExtractionService } from './extractions.js';
import { InProcessJobs } from './in-process-jobs.js';
import { AcceptedMeasures } from './accepted-measures.js';
import { SecretVault } from './job-policy.js';
import { JobService } from './jobs.js';
import { PipelineService } from './pipelines.js';
import { ExportService } from './exports.js';
import { MailService, type MailTransport } from './mail.js';
import type { JobQueue, WebhookQueue } from '../queue/types.js';
import { RateLimitService } from './rate-limits.js';
import { RetentionService } from './retention.js';
import { JobRunner, type PluginExecutor } from './runner.js';
import { SessionService } from './sessions.js';
import { UploadService } from './uploads.js';
import {
  DEFAULT_UPLOAD_IDLE_MS,
  DEFAULT_UPLOAD_MAX_MS,
  orphanUploadAgeMs,
  stagedUploadLimitMs,
} from './upload-time.js';
import { UrlImporter } from './url-import.js';
import { WebhookService } from './webhooks.js';
import { FinishedJobs } from './finished-jobs.js';

export interface ServicesConfig {
  publicUrl: string;
  workRoot: string;
  /** Uploads and outputs: deleted within this long (spec: 1 hour). */
  retentionMs: number;
  maxAttempts: number;
  /**
   * Derives the 15-minute download tokens (download-links.ts); at least 32 bytes, never stored
   * in the database. Every process that serves polls or runs jobs must have the same one.
   */
  tokenSecret: string;
  /**
   * WEBHOOKS_ALLOW_PRIVATE=1: webhooks may go to private and loopback addresses, over http too (never to metadata
   * addresses).
   */
  webhooksAllowPrivate?: boolean;
  /**
   * IMPORT_ALLOW_PRIVATE=1: URL imports (and S3 export endpoints) may reach from private and loopback addresses, over
   * http too (never metadata addresses).
   */
  importAllowPrivate?: boolean;
  /** The deadline of one URL import. */
  importTimeoutMs?: number;
  /**
   * Whether this process runs queued jobs (WORKERS > 0; default true): only then is what acceptance's measures read
   * kept for the runs (accepted-measures.ts). An API process without workers keeps nothing.
   */
  runsJobs?: boolean;
  /** How long an S3 export's holder vouches for it without renewing (EXPORT_LEASE_S). */
  exportLeaseMs?: number;
  /** Tests: the webhook back-off schedule. */
  webhookRetryDelaysMs?: readonly number[];
  /** A request body's deadline (UPLOAD_MAX_S; default 45 minutes): what staged uploads' lifetimes follow from. */
  uploadMaxMs?: number;
  /** A request body's longest pause while it is read (UPLOAD_IDLE_S; default 60 s). */
  uploadIdleMs?: number;
}

export interface ServiceDeps {
  store: Store;
  blobs: BlobStore;
  registry: Registry;
  queue: JobQueue;
  /** Where webhook deliveries are queued (the same Queue in production); without it they wait for the reconciler. */
  webhookQueue?: WebhookQueue;
  /** Where plugin runs execute: the sandbox pool (never the thread serving HTTP). */
  executor: PluginExecutor;
  /** Where mail goes (SMTP or the outbox, mail-transport.ts); without it no mail can be sent (sign-up still works). */
  mail?: MailTransport;
  log: Logger;
  clock?: Clock;
  config: ServicesConfig;
}

export type Services = ReturnType<typeof createServices>;

export function createServices({
  store,
  blobs,
  registry,
  queue,
  webhookQueue,
  executor,
  mail,
  log,
  clock = systemClock,
  config,
}: ServiceDeps) {
  const vault = new SecretVault();
  const uploadMaxMs = config.uploadMaxMs ?? DEFAULT_UPLOAD_MAX_MS;
  const acceptedMeasures = config.runsJobs === false ? undefined : new AcceptedMeasures();
  const accounts = new AccountService({ accounts: store.accounts, principalChanges: store.principalChanges }, clock);
  const credits = new CreditService(
    { accounts: store.accounts, jobs: store.jobs, credits: store.credits },
    accounts,
    clock,
  );
  const uploads = new UploadService(
    blobs,
    new UrlImporter({
      allowPrivate: config.importAllowPrivate ?? false,
      ...(config.importTimeoutMs ? { timeoutMs: config.importTimeoutMs } : {}),
    }),
    acceptedMeasures,
    {
      idleMs: config.uploadIdleMs ?? DEFAULT_UPLOAD_IDLE_MS,
      stagedLimitMs: stagedUploadLimitMs(uploadMaxMs),
    },
  );
  const capabilities = new CapabilityService(registry);
  const links = new DownloadLinks(
    { jobs: store.jobs, links: store.links },
    config.tokenSecret,
    config.publicUrl,
    clock,
  );
  // Webhooks read the poll answers of jobs, batches and extractions, which are built after it.
  const late: { jobs?: JobService; batches?: BatchService; extractions?: ExtractionService } = {};
  const webhooks = new WebhookService(
    { accounts: store.accounts, jobs: store.jobs, webhooks: store.webhooks },
    clock,
    log,
    {
      tokenSecret: config.tokenSecret,
      allowPrivate: config.webhooksAllowPrivate ?? false,
      ...(config.webhookRetryDelaysMs ? { retryDelaysMs: config.webhookRetryDelaysMs } : {}),
    },
    {
      job: async (jobId) => {
        const job = await store.jobs.jobs.get(jobId);
        return job ? late.jobs!.present(job) : { error: 'Job not found' };
      },
      batch: (account, batchId) => late.batches!.status({ account, keyId: '' }, batchId),
      extraction: (account, tool, batchId) => late.extractions!.poll({ account, keyId: '' }, tool, batchId),
    },
    webhookQueue,
  );
  const finishedJobs = new FinishedJobs();
  const runner = new JobRunner(
    { jobs: store.jobs },
    blobs,
    registry,
    credits,
    vault,
    clock,
    log,
    links,
    executor,
    {
      workRoot: config.workRoot,
      outputRetentionMs: config.retentionMs,
      maxAttempts: config.maxAttempts,
    },
    {
      // Waiting requests of this process first (they answer at once), then the webhook event.
      jobFinished: async (jobId) => {
        finishedJobs.notify(jobId);
        await webhooks.jobFinished(jobId);
      },
    },
    uploads,
    acceptedMeasures,
  );
  const inProcessJobs = new InProcessJobs(runner, log);
  const jobs = new JobService(
    { jobs: store.jobs },
    registry,
    uploads,
    credits,
    queue,
    inProcessJobs,
    vault,
    clock,
    config,
    links,
    webhooks,
    runner,
    finishedJobs,
  );
  const exports = new ExportService(
    { jobs: store.jobs },
    blobs,
    log,
    { allowPrivate: config.importAllowPrivate ?? false },
    config.exportLeaseMs,
  );
  const pipelines = new PipelineService(registry, uploads, jobs, exports);
  const batches = new BatchService({ jobs: store.jobs }, blobs, jobs, clock, config.publicUrl, webhooks, exports);
  const extractions = new ExtractionService(
    { jobs: store.jobs, credits: store.credits },
    registry,
    capabilities,
    uploads,
    credits,
    queue,
    clock,
    webhooks,
  );
  Object.assign(late, { jobs, batches, extractions });
  const rateLimits = new RateLimitService({ credits: store.credits }, accounts, clock);
  const sessions = new SessionService(
    { accounts: store.accounts },
    accounts,
    rateLimits,
    mail ? new MailService(mail, config.publicUrl) : undefined,
    clock,
    log,
  );
  return {
    registry,
    clock,
    accounts,
    credits,
    uploads,
    jobs,
    pipelines,
    exports,
    batches,
    capabilities,
    extractions,
    webhooks,
    rateLimits,
    sessions,
    downloads: new DownloadService({ jobs: store.jobs, links: store.links }, blobs, jobs, clock, links),
    retention: new RetentionService(
      { accounts: store.accounts, jobs: store.jobs, links: store.links },
      blobs,
      clock,
      log,
      { uploadsMs: orphanUploadAgeMs(config.retentionMs, uploadMaxMs), outputsMs: config.retentionMs },
      exports,
    ),
    runner,
    inProcessJobs,
  };
}

export { ServiceError, HTTP_STATUS, type ServiceErrorCode } from './errors.js';
export { backendUnavailable, expectedError } from './unavailable.js';
export type { Principal } from './accounts.js';
