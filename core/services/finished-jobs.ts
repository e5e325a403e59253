/**
 * News of the jobs this process finishes, so a `Prefer: wait` request or a watch served here
 * answers as the job is stored done instead of at its next read of the store (every 250 ms).
 * Jobs finished by other processes are still seen by those reads: this only shortens the wait.
 */
import { EventEmitter } from 'node:events';

export class FinishedJobs {
  // One listener per waiting request: no limit applies.
  private readonly emitter = new EventEmitter().setMaxListeners(0);

  /** The job is done or failed in the store. */
  notify(jobId: string): void {
    this.emitter.emit(jobId);
  }

  /**
   * A promise settled when `jobId` is next notified; listen before reading the store, so a
   * finish between the read and the wait is not missed. `cancel` stops listening.
   */
  next(jobId: string): { finished: Promise<void>; cancel(): void } {
    let listener: (() => void) | undefined;
    const finished = new Promise<void>((resolve) => {
      listener = () => resolve();
      this.emitter.once(jobId, listener);
    });
    return { finished, cancel: () => this.emitter.off(jobId, listener!) };
  }
}
