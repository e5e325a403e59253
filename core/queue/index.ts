/**
 * Agenda setup and job definitions: run a conversion job, purge expired files and reconcile the
 * queue with the store every minute, and close the billing period on the 1st of each month (UTC).
 * The same definitions run on the SQLite backend (embedded) and the MongoDB backend (distributed).
 *
 * Each plugin has its own queue entry name (`run-job:<plugin id>`) whose lock limit is the
 * plugin's concurrency, so a worker claims only jobs it can start now: a job whose plugin is busy
 * here stays unlocked for another worker instead of waiting here while that worker idles.
 */
// Before agenda's code loads: its per-poll debug loggers are made once (agenda-debug.ts).
import './agenda-debug.js';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  Agenda,
  InMemoryNotificationChannel,
  backoffStrategies,
  type AgendaBackend,
  type Job,
  type NotificationChannel,
} from 'agenda';
import type { Logger } from '../contract/index.js';
import type { JobsStore } from '../store/types.js';
import { traceCarrier, withRemoteParent } from '../telemetry/tracing.js';
import { guardRemoval, heldLock } from './held-lock.js';
import { RunLock } from './run-lock.js';
import type { JobQueue, JobRunnerPort, QueuedJob, RetentionPort, WebhookDeliveryPort, WebhookQueue } from './types.js';

/** Entries queued before per-plugin names existed; still run. */
export const RUN_JOB = 'run-job';
export const runJobName = (pluginId: string) => `${RUN_JOB}:${pluginId}`;
export const PURGE_EXPIRED = 'purge-expired';
export const CLOSE_BILLING_PERIOD = 'close-billing-period';
/** One entry per webhook delivery, rescheduled for each retry (core/services/webhooks.ts). */
export const DELIVER_WEBHOOK = 'deliver-webhook';
/** Webhook attempts one worker makes at once (each waits on a receiver for up to 10 s). */
const WEBHOOK_CONCURRENCY = 16;
/**
 * An attempt takes at most 10 s plus DNS, and its lock is renewed while it runs: a lock older than this belongs to a
 * dead (or stalled) worker.
 */
const WEBHOOK_LOCK_MS = 30_000;

/** After interrupting running jobs at the end of the grace period, how long they get to hand their job back. */
const HAND_BACK_MS = 5_000;
/** How often a worker removes the work folders of jobs that ended while their run here was dead. */
const WORK_SWEEP_MS = 60_000;
const SETTLE_POLL_MS = 25;
/**
 * Another process inserted the same entry at the same moment: MongoDB's duplicate key, PostgreSQL's unique_violation.
 */
const isDuplicateEntry = (err: unknown) =>
  [11000, '23505'].includes((err as { code?: number | string }).code as number | string);
const REFILL_DELAY_MS = 10;

/**
 * Runs an idempotent start-up step, trying it again with back-off while it fails (a backend restarting as the
 * process starts); by default for about two minutes, then its error ends the start.
 */
export async function retryStartup<T>(
  what: string,
  work: () => Promise<T>,
  log: Logger,
  { delayMs, retries }: { delayMs: number; retries: number } = { delayMs: 1_000, retries: 14 },
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await work();
    } catch (err) {
      if (attempt >= retries) throw err;
      const wait = Math.min(delayMs * 2 ** attempt, 10_000);
      log.warn(`start-up step failed: trying it again in ${wait} ms`, { step: what, error: (err as Error).message });
      await sleep(wait);
    }
  }
}

export interface QueueOptions {
  backend: AgendaBackend;
  /** How often idle workers look for new jobs (from other processes, when `dispatch` does not signal them). */
  processEveryMs: number;
  /**
   * Tells this process's workers about jobs saved by any process (MongoDB change streams, see
   * mongo-backend). Without it, only jobs accepted or slots freed in this process are signalled.
   */
  dispatch?: NotificationChannel;
  /**
   * A lock older than this is considered abandoned (its worker died) and the job runs again.
   * Running jobs renew it on progress and on a timer, so a long job is never stolen; a run whose lock lapsed anyway
   * (its process stalled) and was taken by another attempt is stopped, and its saves change nothing (run-lock.ts).
   */
  lockLifetimeMs: number;
  log: Logger;
  /**
   * When the store or blobs are unreachable, a run is retried with exponential back-off; past
   * the last retry the entry is given up and the reconciler queues the job again.
   */
  retry?: { delayMs: number; maxDelayMs: number; maxRetries: number };
  /** A start-up step that fails is tried again this many times, waiting `delayMs` doubled each time up to 10 s. */
  startup?: { delayMs: number; retries: number };
  /** How often the purge and the reconciler run (Agenda interval). */
  maintenanceEvery?: string;
  /** The webhook deliveries' lock lifetime (30 s); renewed every third of it while an attempt runs. */
  webhookLockLifetimeMs?: number;
}

export interface WorkerDeps {
  runner: JobRunnerPort;
  retention: RetentionPort;
  /** The reconciler reads the unfinished jobs: the store's jobs aggregate is all the queue needs of it. */
  store: { jobs: JobsStore };
  /** Conversion jobs running at once in this process. */
  concurrency: number;
  /** Every plugin this worker runs, with its own concurrency. */
  plugins: ReadonlyArray<{ id: string; concurrency: number }>;
  /** Webhook deliveries: attempted here on their own Agenda when given. */
  webhooks?: WebhookDeliveryPort;
}

export class Queue implements JobQueue, WebhookQueue {
  /** Conversion jobs. */
  readonly agenda: Agenda;
  /** Purge, reconcile and billing: apart, so they never take a conversion's place. */
  private maintenance: Agenda | undefined;
  /** Webhook deliveries: apart too, so a slow receiver never holds a conversion's slot. */
  private deliveries: Agenda | undefined;
  /**
   * Conversion runs here, until Agenda has saved their outcome: by run (Agenda's Job object), since one entry may
   * have two runs here (one whose lock was lost, still stopping, and the next attempt).
   */
  private readonly running = new Map<Job, RunLock>();
  /** Webhook attempts running here, until Agenda has saved their outcome (or handed their entry back). */
  private readonly delivering = new Map<Job, RunLock>();

  /**
   * Dispatch without the poll gap: a job accepted by this process, or a plugin slot freed here,
   * is claimed at once; jobs from other processes through `dispatch` when given, and by polling
   * (`processEveryMs`) in any case.
   */
  private readonly notifications: NotificationChannel;
  /** This process publishes on `dispatch` without running workers (see signalOnly). */
  private signalling = false;
  private workersStarted = false;
  private workSweep: NodeJS.Timeout | undefined;

  constructor(private readonly options: QueueOptions) {
    this.notifications = options.dispatch ?? new InMemoryNotificationChannel();
    this.agenda = new Agenda({
      backend: options.backend,
      processEvery: options.processEveryMs,
      defaultLockLifetime: options.lockLifetimeMs,
      removeOnComplete: true,
      notificationChannel: this.notifications,
    });
    this.agenda.on('error', (err: Error) => options.log.error('queue error', { error: err.message }));
    this.agenda.on('start', guardRemoval);
  }

  async enqueue({ id, pluginId }: QueuedJob): Promise<void> {
    // Unique on the job id: enqueueing twice (recovery after a crash) never runs a job twice.
    try {
      // The accepting request's trace context rides along (traceparent), so the run joins its trace.
      await this.agenda
        .create(runJobName(pluginId), { jobId: id, ...traceCarrier() })
        .unique({ 'data.jobId': id }, { insertOnly: true })
        .save();
    } catch (err) {
      // Another process inserted the same entry at the same moment (its unique index said no). It is queued.
      if (!isDuplicateEntry(err)) throw err;
    }
  }

  /** Unique on the delivery id; due at `at` (now when omitted). */
  async enqueueDelivery(deliveryId: string, at: Date = new Date()): Promise<void> {
    try {
      await this.agenda
        .create(DELIVER_WEBHOOK, { deliveryId })
        .unique({ 'data.deliveryId': deliveryId }, { insertOnly: true })
        .schedule(at)
        .save();
    } catch (err) {
      if (!isDuplicateEntry(err)) throw err;
    }
  }

  /**
   * For a process that accepts jobs but runs none (WORKERS=0) on a backend whose dispatch is
   * published by the saving process (PostgreSQL NOTIFY): connect the channel, which Agenda would
   * otherwise connect only when workers start, so workers elsewhere hear of this process's jobs.
   */
  async signalOnly(): Promise<void> {
    if (!this.options.dispatch || this.signalling) return;
    await this.options.dispatch.connect();
    this.signalling = true;
  }

  /** A round trip to the queue's backend, for /readyz. */
  async ping(): Promise<void> {
    await this.agenda.queryJobs({ limit: 1 });
  }

  /** Start processing in this process (embedded server with workers, or apps/worker). */
  async startWorkers({ runner, retention, store, concurrency, plugins, webhooks }: WorkerDeps): Promise<void> {
    this.workersStarted = true;
    const { log, lockLifetimeMs, retry = { delayMs: 2_000, maxDelayMs: 60_000, maxRetries: 8 } } = this.options;
    const handler = async (job: Job<{ jobId: string }>) => {
      // Renewed on a timer and on progress; the run is aborted when its lock is lost (run-lock.ts).
      const lock = new RunLock(job, lockLifetimeMs, log, { jobId: job.attrs.data.jobId });
      this.running.set(job, lock);
      try {
        await withRemoteParent(job.attrs.data, () => runner.run(job.attrs.data.jobId, lock.signals()));
      } finally {
        await lock.stop();
      }
      // Interrupted (shutdown, or its lock lost), the runner left the job unfinished: make it due now, so Agenda
      // saves it unlocked for any worker to take, instead of removing it as completed. The save applies only while
      // the lock is still this run's: otherwise it changes nothing (held-lock.ts).
      if (lock.signal.aborted) job.attrs.nextRunAt = new Date();
    };
    // The runner turns every plugin failure into a failed job itself, so the handler throws only
    // when the store or blobs are unreachable: retry those with back-off.
    const backoff = backoffStrategies.exponential({
      delay: retry.delayMs,
      maxDelay: retry.maxDelayMs,
      maxRetries: retry.maxRetries,
    });
    for (const plugin of plugins) {
      const slots = Math.max(1, Math.min(plugin.concurrency, concurrency));
      this.agenda.define(runJobName(plugin.id), handler, {
        concurrency: slots,
        lockLimit: slots,
        lockLifetime: lockLifetimeMs,
        backoff,
      });
    }
    this.agenda.define(RUN_JOB, handler, { concurrency: 1, lockLimit: 1, lockLifetime: lockLifetimeMs, backoff });
    // Agenda has saved the job's outcome (or handed it back) when it emits complete.
    this.agenda.on('complete', (job: Job) => {
      this.running.delete(job);
      if (heldLock(job.attrs)?.lost) {
        log.warn('a run ended after another attempt took its queue entry: its save and removal changed nothing', {
          jobId: (job.attrs.data as { jobId?: string }).jobId,
        });
      }
      // A slot of this plugin is free: claim its next waiting job now rather than at the next poll
      // (a moment later: Agenda releases the finished job's lock just after this event).
      setTimeout(() => {
        void this.notifications
          .publish({
            jobId: job.attrs._id!,
            jobName: job.attrs.name,
            nextRunAt: new Date(),
            priority: 0,
            timestamp: new Date(),
          })
          .catch(() => undefined);
      }, REFILL_DELAY_MS);
    });

    const maintenance = new Agenda({
      backend: this.options.backend,
      processEvery: Math.max(this.options.processEveryMs, 1_000),
      // A process that dies or stalls holding the purge's lock delays the next purge by this much (Agenda's default
      // is 10 minutes: files would outlive their retention by as long). The purge is idempotent, so a slow one
      // that overruns it and runs beside the next changes nothing.
      defaultLockLifetime: lockLifetimeMs,
      removeOnComplete: true,
    });
    maintenance.on('error', (err: Error) => log.error('queue error', { error: err.message }));
    maintenance.on('start', guardRemoval);
    maintenance.define(PURGE_EXPIRED, async () => {
      await retention.purge();
      await this.reconcile(runner, store);
      if (webhooks) await this.reconcileDeliveries(webhooks);
    });
    // Usage is kept per month, so the new month starts at zero by itself; this job records the
    // close so operators can bill overage, and is harmless to run twice.
    maintenance.define(CLOSE_BILLING_PERIOD, async () => {
      log.info('billing period closed');
    });
    // Start-up steps are idempotent: one that fails (the store or queue backend restarting) is tried again with
    // back-off. Conversions are taken last, so a start-up that gives up ends the process before it runs any.
    const step = async (what: string, work: () => Promise<unknown>) => {
      await retryStartup(what, work, log, this.options.startup);
    };
    await step('maintenance start', () => maintenance.start());
    this.maintenance = maintenance;
    await step('maintenance schedule', async () => {
      await maintenance.every(this.options.maintenanceEvery ?? '1 minute', PURGE_EXPIRED);
      await maintenance.every('0 0 1 * *', CLOSE_BILLING_PERIOD, undefined, { timezone: 'UTC' });
    });
    await step('reconcile', () => this.reconcile(runner, store));
    // The work folders are this machine's, so every worker sweeps its own (the purge runs in one process only).
    const sweep = () =>
      runner.sweepWork?.().catch((err: Error) => log.warn('work folder sweep failed', { error: err.message }));
    await sweep();
    this.workSweep = setInterval(() => void sweep(), WORK_SWEEP_MS);
    this.workSweep.unref();
    if (webhooks) await this.startDeliveries(webhooks, backoff, step);
    // Never more locked than this process runs at once: what it cannot start, others may.
    this.agenda.lockLimit(concurrency);
    this.agenda.maxConcurrency(concurrency);
    await step('queue start', () => this.agenda.start());
  }

  /**
   * Webhook deliveries on their own Agenda: an attempt that fails leaves its entry due again at
   * the delivery's next attempt (the same entry, so the webhook-id and the one record hold); a
   * handler that throws (store unreachable) is retried with back-off, then left to the reconciler.
   */
  private async startDeliveries(
    webhooks: WebhookDeliveryPort,
    backoff: ReturnType<typeof backoffStrategies.exponential>,
    step: (what: string, work: () => Promise<unknown>) => Promise<void>,
  ): Promise<void> {
    const { log, webhookLockLifetimeMs: lockLifetime = WEBHOOK_LOCK_MS } = this.options;
    const deliveries = new Agenda({
      backend: this.options.backend,
      processEvery: this.options.processEveryMs,
      removeOnComplete: true,
    });
    deliveries.on('error', (err: Error) => log.error('queue error', { error: err.message }));
    deliveries.on('start', guardRemoval);
    // Agenda has saved the attempt's outcome (or handed the entry back) when it emits complete.
    deliveries.on('complete', (job: Job) => this.delivering.delete(job));
    deliveries.define(
      DELIVER_WEBHOOK,
      async (job: Job<{ deliveryId: string }>) => {
        const { deliveryId } = job.attrs.data;
        // Renewed on a timer while the receiver answers; at shutdown the attempt is stopped and its entry handed
        // back, due now, rather than left locked for a lock lifetime (run-lock.ts).
        const lock = new RunLock(job, lockLifetime, log, { deliveryId });
        this.delivering.set(job, lock);
        let next: Date | null;
        try {
          next = await webhooks.deliver(deliveryId, lock.signal);
        } finally {
          await lock.stop();
        }
        if (next) job.attrs.nextRunAt = next;
      },
      { concurrency: WEBHOOK_CONCURRENCY, lockLimit: WEBHOOK_CONCURRENCY, lockLifetime, backoff },
    );
    deliveries.maxConcurrency(WEBHOOK_CONCURRENCY);
    await step('webhook deliveries start', () => deliveries.start());
    this.deliveries = deliveries;
    await step('webhook reconcile', () => this.reconcileDeliveries(webhooks));
  }

  /** Every pending webhook delivery has a live entry (one lost in a crash, or given up, is queued again). */
  async reconcileDeliveries(webhooks: WebhookDeliveryPort): Promise<number> {
    let requeued = 0;
    const lockDeadline = Date.now() - (this.options.webhookLockLifetimeMs ?? WEBHOOK_LOCK_MS);
    for (const { id, nextAttemptAt } of await webhooks.pending()) {
      const { jobs: entries } = await this.agenda.queryJobs({ data: { deliveryId: id } });
      if (entries.some((e) => e.nextRunAt || (e.lockedAt && new Date(e.lockedAt).getTime() > lockDeadline))) continue;
      if (entries.length) await this.agenda.cancel({ data: { deliveryId: id } });
      await this.enqueueDelivery(
        id,
        nextAttemptAt && nextAttemptAt.getTime() > Date.now() ? nextAttemptAt : new Date(),
      );
      requeued++;
    }
    return requeued;
  }

  /**
   * Every unfinished job has a live queue entry. Jobs accepted just before a crash may have
   * missed the queue, and an entry is given up when the store stayed unreachable past its last
   * retry: such jobs are queued again (idempotent: one entry per job). An entry is live while it
   * is due (now or later) or locked by a worker within its lock lifetime. In-process jobs are the
   * runner's to judge (see JobRunner.triage).
   */
  async reconcile(runner: JobRunnerPort, store: { jobs: JobsStore }): Promise<number> {
    let requeued = 0;
    for (const job of await store.jobs.jobs.listUnfinished()) {
      if ((await runner.triage(job)) !== 'queue') continue;
      const { jobs: entries } = await this.agenda.queryJobs({ data: { jobId: job.id } });
      const lockDeadline = Date.now() - this.options.lockLifetimeMs;
      const live = entries.some((e) => e.nextRunAt || (e.lockedAt && new Date(e.lockedAt).getTime() > lockDeadline));
      if (live) continue;
      if (entries.length) {
        await this.agenda.cancel({ data: { jobId: job.id } });
        this.options.log.warn('queue entry was given up while the job is unfinished: queued again', { jobId: job.id });
      }
      await this.enqueue({ id: job.id, pluginId: job.pluginId });
      requeued++;
    }
    return requeued;
  }

  /**
   * Graceful stop: take no new jobs (and release those locked here but not started), give
   * running ones `graceMs` to finish, then interrupt them: an interrupted job is handed back to
   * the queue, due at once, for another worker or the next start. Never lost either way.
   */
  async stop(graceMs = 10_000): Promise<void> {
    clearInterval(this.workSweep);
    // The backend's connection is closed last (below): the runs still going save their outcome through it.
    await this.maintenance?.stop(false);
    await this.deliveries?.stop(false);
    await this.agenda.stop(false);
    if (!this.workersStarted && this.signalling) {
      // Agenda never started, so its stop released nothing: close what signalOnly opened.
      await this.options.dispatch?.disconnect();
      this.signalling = false;
    }
    if (!(await this.allSettled(graceMs))) {
      for (const lock of this.runs()) lock.abort(new Error('the worker is shutting down'));
      if (!(await this.allSettled(HAND_BACK_MS))) {
        this.options.log.warn('runs still going at exit; they run again once their lock expires', {
          jobs: this.running.size,
          webhookDeliveries: this.delivering.size,
        });
      }
    }
    if (this.options.backend.ownsConnection) await this.options.backend.disconnect();
  }

  private runs(): RunLock[] {
    return [...this.running.values(), ...this.delivering.values()];
  }

  private async allSettled(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (this.runs().length > 0 && Date.now() < deadline) await sleep(SETTLE_POLL_MS);
    return this.runs().length === 0;
  }
}
