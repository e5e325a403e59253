/**
 * Lock-checked saves: a run's writes to its queue entry apply only while the entry's lock is still
 * the run's. Agenda stamps `lockedAt` to lock an entry for a run, writes it again to renew the lock,
 * and saves (unlocks) and removes the entry when the run ends; its writes do not check whose lock
 * they overwrite. A run whose lock lapsed (its process stalled past the lock lifetime) and was taken
 * by another attempt would unlock, re-lock or remove that attempt's entry. Our backends tag each
 * entry they lock for a run with the `lockedAt` they wrote, and apply a tagged save only while the
 * stored `lockedAt` is still that value (compare-and-set); a refused save writes nothing, marks the
 * run's hold lost and throws LockLost.
 */
import type { Job, JobParameters } from 'agenda';

/** Agenda's Job copies its parameters' own keys, symbols included, so the tag rides along into `job.attrs`. */
const HELD = Symbol('transmute.queue.heldLock');

/** Shared by the parameters a backend returned and the Job made from them: one per run. */
export interface HeldLock {
  /** The `lockedAt` this run last wrote (null once it unlocked the entry). */
  lockedAt: Date | null;
  /** A save found the lock taken by another attempt (or the entry gone): this run writes nothing more. */
  lost: boolean;
}

type Tagged = JobParameters & { [HELD]?: HeldLock };

/** Tag an entry a backend just locked for a run (getNextJobToRun's answer). */
export function holdLock<T extends JobParameters | undefined>(job: T): T {
  if (job) (job as Tagged)[HELD] = { lockedAt: job.lockedAt ? new Date(job.lockedAt) : null, lost: false };
  return job;
}

/** The run's hold on its entry; undefined for parameters not locked for a run (plain saves stay unconditional). */
export function heldLock(job: JobParameters): HeldLock | undefined {
  return (job as Tagged)[HELD];
}

/** After a lock-checked save: the hold moves to the `lockedAt` written, or is lost (LockLost thrown). */
export function settleSave(job: JobParameters, applied: boolean): void {
  const held = heldLock(job);
  if (!held) return;
  if (!applied) {
    held.lost = true;
    throw new LockLost(job);
  }
  held.lockedAt = job.lockedAt ? new Date(job.lockedAt) : null;
}

/**
 * Agenda removes a finished one-shot entry after the run's last save (Job.remove, its one call for it): not when
 * that save was refused, the entry being another attempt's. For Agenda's 'start' event (the run's first save done).
 */
export function guardRemoval(job: Job): void {
  const remove = job.remove.bind(job);
  job.remove = async () => (heldLock(job.attrs)?.lost ? 0 : remove());
}

/** A run's save was refused: its entry is locked by another attempt now, or gone. */
export class LockLost extends Error {
  override readonly name = 'LockLost';
  constructor(job: JobParameters) {
    super(`queue entry ${String(job._id)} (${job.name}) is no longer locked by this run: the save changed nothing`);
  }
}
