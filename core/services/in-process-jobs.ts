/**
 * Jobs whose options carry a secret (protect-pdf and unlock-pdf passwords) run in the process
 * that accepted them, because the secret exists only in that process's memory: it is never
 * written to the store or the queue, so no other worker could have it. If this process stops
 * before such a job finishes, the job stays unfinished; recovery at the next start queues it,
 * and the runner fails it with a refund and a message asking to resubmit.
 */
import type { Logger } from '../contract/index.js';
import type { JobRunnerPort, LocalJobs } from '../queue/types.js';

export class InProcessJobs implements LocalJobs {
  private readonly running = new Map<string, { done: Promise<void>; controller: AbortController }>();

  constructor(
    private readonly runner: JobRunnerPort,
    private readonly log: Logger,
  ) {}

  start(jobId: string): void {
    const controller = new AbortController();
    const done = this.runner
      .run(jobId, { signal: controller.signal })
      .catch((err: Error) => this.log.error('in-process job crashed', { jobId, error: err.message }))
      .finally(() => this.running.delete(jobId));
    this.running.set(jobId, { done, controller });
  }

  /** Give running jobs `graceMs` to finish, then interrupt them. */
  async stop(graceMs: number): Promise<void> {
    const all = () => Promise.all([...this.running.values()].map((r) => r.done));
    const timer = setTimeout(() => {
      for (const run of this.running.values()) run.controller.abort();
    }, graceMs);
    await all();
    clearTimeout(timer);
  }
}
