/**
 * Agenda setup and job definitions: run a conversion job, purge expired files every minute,
 * and close the billing period on the 1st of each month (UTC). The same definitions run on the
 * SQLite backend (embedded) and the MongoDB backend (distributed).
 */
import { Agenda, type AgendaBackend, type Job } from 'agenda';
import type { Logger } from '../contract/index.js';
import type { JobQueue } from '../services/jobs.js';
import type { JobRunner } from '../services/runner.js';
import type { RetentionService } from '../services/retention.js';
import type { Store } from '../store/types.js';

export const RUN_JOB = 'run-job';
export const PURGE_EXPIRED = 'purge-expired';
export const CLOSE_BILLING_PERIOD = 'close-billing-period';

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
  private readonly inFlight = new Set<AbortController>();
  private working = false;

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
    await this.agenda.create(RUN_JOB, { jobId }).unique({ 'data.jobId': jobId }, { insertOnly: true }).save();
  }

  /** Start processing in this process (embedded server with workers, or apps/worker). */
  async startWorkers({ runner, retention, store, concurrency }: WorkerDeps): Promise<void> {
    const { log, lockLifetimeMs } = this.options;
    this.agenda.define<{ jobId: string }>(
      RUN_JOB,
      async (job: Job<{ jobId: string }>) => {
        const controller = new AbortController();
        this.inFlight.add(controller);
        // Renew the lock even while a plugin reports no progress (one long engine call).
        const renew = setInterval(() => void job.touch().catch(() => undefined), Math.max(250, lockLifetimeMs / 3));
        try {
          await runner.run(job.attrs.data.jobId, { signal: controller.signal, heartbeat: () => void job.touch().catch(() => undefined) });
        } finally {
          clearInterval(renew);
          this.inFlight.delete(controller);
        }
      },
      { concurrency, lockLifetime: lockLifetimeMs },
    );
    this.agenda.define(PURGE_EXPIRED, async () => {
      await retention.purge();
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
    this.working = true;
    // Jobs accepted just before a crash may have missed the queue: put every unfinished job back.
    for (const job of await store.jobs.listUnfinished()) await this.enqueue(job.id);
  }

  /**
   * Graceful stop: take no new jobs, give running ones `graceMs` to finish, then interrupt them
   * (their jobs stay queued and run again on the next start).
   */
  async stop(graceMs = 10_000): Promise<void> {
    if (this.working) {
      const drained = this.agenda.drain({ timeout: graceMs }).catch(() => undefined);
      const timer = setTimeout(() => this.inFlight.forEach((c) => c.abort()), graceMs);
      await drained;
      clearTimeout(timer);
      this.inFlight.forEach((c) => c.abort());
    }
    await this.agenda.stop();
  }
}
