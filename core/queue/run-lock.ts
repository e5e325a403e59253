/**
 * One run's queue lock (a conversion's or a webhook delivery's), renewed from one place: a timer (every third of the
 * lock lifetime, so a long engine call that reports no progress keeps it) and the run's progress heartbeat both call
 * `renew()`, one renewal at a time.
 * A renewal is a lock-checked save (held-lock.ts). When it finds the lock taken by another attempt, when Agenda
 * has given the run up, or when renewals failed for a whole lock lifetime (the entry is anyone's by then), the run
 * is aborted with LockLapsed and the entry left to the attempt that holds it.
 */
import type { Job } from 'agenda';
import type { Logger } from '../contract/index.js';
import { LockLost, heldLock } from './held-lock.js';
import type { RunSignals } from './types.js';

/** Why a run was stopped when its queue lock was lost. */
export class LockLapsed extends Error {
  override readonly name = 'LockLapsed';
}

export class RunLock {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  /** When the last renewal that reached the store began. */
  private renewedAt = Date.now();
  private renewing: Promise<boolean> | undefined;
  private stopped = false;

  constructor(
    private readonly job: Job,
    private readonly lifetimeMs: number,
    private readonly log: Logger,
    /** What the run is about, for the log (its job id, or its delivery id). */
    private readonly subject: Record<string, string> = {},
  ) {
    this.timer = setInterval(() => void this.renew(), Math.max(250, lifetimeMs / 3));
  }

  /** Aborted on shutdown (Queue.stop) or when the lock is lost. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** A save of this run was refused: its entry is another attempt's (or gone). */
  get lost(): boolean {
    return heldLock(this.job.attrs)?.lost ?? false;
  }

  /** What the runner is given: the abort signal, progress renewing the lock, and a check before failing the job. */
  signals(): RunSignals {
    return { signal: this.signal, heartbeat: () => void this.renew(), holdsJob: this.renew };
  }

  /** Renew now (joining a renewal under way): resolves whether this run still holds its entry. */
  readonly renew = (): Promise<boolean> => {
    if (this.stopped || this.signal.aborted) return Promise.resolve(!this.lost && !this.signal.aborted);
    this.renewing ??= this.touch().finally(() => (this.renewing = undefined));
    return this.renewing;
  };

  abort(reason: Error): void {
    this.controller.abort(reason);
  }

  /** No more renewals; waits for one under way, so the run's last save comes after it. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.renewing;
  }

  private async touch(): Promise<boolean> {
    // Agenda's own check (in-memory, every half lifetime) may have given the run up first, freeing its slot.
    const gaveUp = () => {
      const why = this.job.getCanceledMessage();
      return why ? `Agenda gave the run up (${why instanceof Error ? why.message : String(why)})` : undefined;
    };
    if (gaveUp()) return this.lose(gaveUp()!);
    const startedAt = Date.now();
    try {
      await this.job.touch();
      this.renewedAt = startedAt;
      return true;
    } catch (err) {
      if (err instanceof LockLost) return this.lose('another attempt holds its queue entry now (or it was removed)');
      if (gaveUp()) return this.lose(gaveUp()!);
      if (Date.now() - this.renewedAt >= this.lifetimeMs) {
        return this.lose(`its queue lock could not be renewed for ${this.lifetimeMs} ms: ${(err as Error).message}`);
      }
      // Not renewed this time (the store did not answer): the lock still has time.
      return true;
    }
  }

  private lose(why: string): false {
    this.log.warn('queue lock lost: the run stops and leaves the job to the attempt holding it', {
      ...this.subject,
      reason: why,
    });
    this.controller.abort(new LockLapsed(`the run's queue lock was lost: ${why}`));
    return false;
  }
}
