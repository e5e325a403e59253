/**
 * Agenda setup and job definitions: run a conversion job, purge expired files every minute,
 * and close the billing period on the 1st of each month (UTC). The same definitions run on the
 * SQLite backend (embedded) and the MongoDB backend (distributed).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Agenda, backoffStrategies, type AgendaBackend, type Job } from 'agenda';
import type { Logger } from '../contract/index.js';
import type { JobQueue } from '../services/jobs.js';
import type { JobRunner } from '../services/runner.js';
import type { RetentionService } from '../services/retention.js';
import type { Store } from '../store/types.js';

export const RUN_JOB = 'run-job';
export const PURGE_EXPIRED = 'purge-expired';
export const CLOSE_BILLING_PERIOD = 'close-billing-period';

/** After interrupting running jobs at the end of the grace period, how long they get to hand their job back. */
const HAND_BACK_MS = 5_000;
const SETTLE_POLL_MS = 25;
const DUPLICATE_KEY = 11000;

export interface QueueOptions {
  backend: AgendaBackend;
  /** How often idle workers look for new jobs. */
  processEveryMs: number;
  /**
   * A lock older than this is considered abandoned (its worker died) and the job runs again.
   * Running jobs renew it on progress and on a timer, so a long job is never stolen.
   */
  lockLifetimeMs: number;
  log: Logger;
}

export interface WorkerDeps {
  runner: JobRunner;
  retention: RetentionService;
  store: Store;
  /** Conversion jobs run at once in this process. */
  concurrency: number;
}

export class Queue implements JobQueue {
  readonly agenda: Agenda;
  /** Conversion jobs running here, by Agenda job id, until Agenda has saved their outcome. */
  private readonly running = new Map<string, AbortController>();

  constructor(private readonly options: QueueOptions) {
    this.agenda = new Agenda({
      backend: options.backend,
      processEvery: options.processEveryMs,
      defaultLockLifetime: options.lockLifetimeMs,
      removeOnComplete: true,
    });
    this.agenda.on('error', (err: Error) => options.log.error('queue error', { error: err.message }));
  }

  async enqueue(jobId: string): Promise<void> {
    // Unique on the job id: enqueueing twice (recovery after a crash) never runs a job twice.
    try {
      await this.agenda.create(RUN_JOB, { jobId }).unique({ 'data.jobId': jobId }, { insertOnly: true }).save();
    } catch (err) {
      // MongoDB: another process inserted the same entry at the same moment (its unique index said no). It is queued.
      if ((err as { code?: unknown }).code !== DUPLICATE_KEY) throw err;
    }
  }

  /** A round trip to the queue's backend, for /readyz. */
  async ping(): Promise<void> {
    await this.agenda.queryJobs({ limit: 1 });
  }

  /** Start processing in this process (embedded server with workers, or apps/worker). */
  async startWorkers({ runner, retention, store, concurrency }: WorkerDeps): Promise<void> {
    const { log, lockLifetimeMs } = this.options;
    this.agenda.define<{ jobId: string }>(
      RUN_JOB,
      async (job: Job<{ jobId: string }>) => {
        const controller = new AbortController();
        this.running.set(String(job.attrs._id), controller);
        // Renew the lock even while a plugin reports no progress (one long engine call).
        const renew = setInterval(() => void job.touch().catch(() => undefined), Math.max(250, lockLifetimeMs / 3));
        try {
          await runner.run(job.attrs.data.jobId, { signal: controller.signal, heartbeat: () => void job.touch().catch(() => undefined) });
        } finally {
          clearInterval(renew);
        }
        // Interrupted by shutdown, the runner left the job unfinished: make it due now, so Agenda
        // saves it unlocked for any worker to take, instead of removing it as completed.
        if (controller.signal.aborted) job.attrs.nextRunAt = new Date();
      },
      // A worker locks only the jobs it can run at once, leaving the rest to other workers. The
      // runner turns every plugin failure into a failed job itself, so the handler throws only
      // when the store or blobs are unreachable: retry those, for several minutes.
      {
        concurrency, lockLimit: concurrency, lockLifetime: lockLifetimeMs,
        backoff: backoffStrategies.exponential({ delay: 2_000, maxDelay: 60_000, maxRetries: 8 }),
      },
    );
    // Agenda has saved the job's outcome (or handed it back) when it emits complete.
    this.agenda.on(`complete:${RUN_JOB}`, (job: Job) => this.running.delete(String(job.attrs._id)));
    this.agenda.define(PURGE_EXPIRED, async () => {
      await retention.purge();
      await this.recover(runner, store);
    });
    // Usage is kept per month, so the new month starts at zero by itself; this job records the
    // close so operators can bill overage, and is harmless to run twice.
    this.agenda.define(CLOSE_BILLING_PERIOD, async () => {
      log.info('billing period closed');
    });
    this.agenda.maxConcurrency(concurrency + 2);
    await this.agenda.start();
    await this.agenda.every('1 minute', PURGE_EXPIRED);
    await this.agenda.every('0 0 1 * *', CLOSE_BILLING_PERIOD, undefined, { timezone: 'UTC' });
    await this.recover(runner, store);
  }

  /**
   * Jobs accepted just before a crash may have missed the queue: put unfinished jobs back
   * (idempotent). In-process jobs are the runner's to judge (see JobRunner.triage).
   */
  private async recover(runner: JobRunner, store: Store): Promise<void> {
    for (const job of await store.jobs.listUnfinished()) {
      if ((await runner.triage(job)) === 'queue') await this.enqueue(job.id);
    }
  }

  /**
   * Graceful stop: take no new jobs (and release those locked here but not started), give
   * running ones `graceMs` to finish, then interrupt them: an interrupted job is handed back to
   * the queue, due at once, for another worker or the next start. Never lost either way.
   */
  async stop(graceMs = 10_000): Promise<void> {
    await this.agenda.stop();
    if (await this.allSettled(graceMs)) return;
    this.running.forEach((controller) => controller.abort());
    if (!(await this.allSettled(HAND_BACK_MS))) {
      this.options.log.warn('jobs still running at exit; they run again once their lock expires', { jobs: this.running.size });
    }
  }

  private async allSettled(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (this.running.size > 0 && Date.now() < deadline) await sleep(SETTLE_POLL_MS);
    return this.running.size === 0;
  }
}
