/**
 * Lock-checked saves: a run's writes to its queue entry apply only while the entry's lock is still
 * the run's. Agenda stamps `lockedAt` to lock an entry for a run, writes it again to renew the lock,
 * and saves (unlocks) and removes the entry when the run ends; its writes do not check whose lock
 * they overwrite. A run whose lock lapsed (its process stalled past the lock lifetime) and was taken
 * by another attempt would unlock, re-lock or remove that attempt's entry. Our backends tag each
 * entry they lock for a run with the `lockedAt` they wrote, and apply a tagged save only while the
 * stored `lockedAt` is still that value (compare-and-set); a refused save writes nothing, marks the
 * run's hold lost and throws LockLost. A save whose outcome is unknown (the store committed it, but its reply was
 * lost) may have moved the stored `lockedAt` to the value it wrote: the run's next saves accept that one too.
 *
 * Every path a backend locks an entry by for a run is tagged (getNextJobToRun, and lockJob, which Agenda 6.2.6 does
 * not call for a run but a later version might); the lock suite fails if Agenda starts running jobs locked otherwise.
 */
import type { Job, JobParameters } from 'agenda';

/** Agenda's Job copies its parameters' own keys, symbols included, so the tag rides along into `job.attrs`. */
const HELD = Symbol('transmute.queue.heldLock');

/** Shared by the parameters a backend returned and the Job made from them: one per run. */
export interface HeldLock {
  /** The `lockedAt` this run last wrote and saw applied (null once it unlocked the entry). */
  lockedAt: Date | null;
  /**
   * The `lockedAt` values written since by saves whose outcome is unknown (they threw: the write may have committed
   * though its reply was lost), newest last. Any of them may be the stored one.
   */
  unconfirmed: Array<Date | null>;
  /** A save found the lock taken by another attempt (or the entry gone): this run writes nothing more. */
  lost: boolean;
}

type Tagged = JobParameters & { [HELD]?: HeldLock };

/** Saves of unknown outcome remembered at most (renewals fail for a whole lock lifetime, ~3, before a run stops). */
const UNCONFIRMED_KEPT = 8;

const lockTime = (value: Date | string | null | undefined) => (value ? new Date(value) : null);

/** Tag an entry a backend just locked for a run (getNextJobToRun's or lockJob's answer). */
export function holdLock<T extends JobParameters | undefined>(job: T): T {
  if (job) (job as Tagged)[HELD] = { lockedAt: lockTime(job.lockedAt), unconfirmed: [], lost: false };
  return job;
}

/** The run's hold on its entry; undefined for parameters not locked for a run (plain saves stay unconditional). */
export function heldLock(job: JobParameters): HeldLock | undefined {
  return (job as Tagged)[HELD];
}

/** The stored `lockedAt` values under which the entry is still this run's: the one recorded, and any unconfirmed. */
export function acceptedLocks(held: HeldLock): Array<Date | null> {
  const accepted = [held.lockedAt, ...held.unconfirmed];
  return accepted.filter((value, i) => accepted.findIndex((other) => sameTime(other, value)) === i);
}

const sameTime = (a: Date | null, b: Date | null) =>
  a === null ? b === null : b !== null && a.getTime() === b.getTime();

/**
 * A lock-checked save of a held entry: `write(accepted)` applies the save only where the stored `lockedAt` is one of
 * `accepted` (acceptedLocks) and answers whether it did. Applied, the hold moves to the `lockedAt` written; refused,
 * it is lost (LockLost thrown); thrown (the store did not answer), the value written is remembered as unconfirmed.
 */
export async function lockCheckedSave(
  job: JobParameters,
  held: HeldLock,
  write: (accepted: Array<Date | null>) => Promise<boolean> | boolean,
): Promise<void> {
  const writing = lockTime(job.lockedAt);
  let applied: boolean;
  try {
    applied = await write(acceptedLocks(held));
  } catch (err) {
    held.unconfirmed = [...held.unconfirmed, writing].slice(-UNCONFIRMED_KEPT);
    throw err;
  }
  if (!applied) {
    held.lost = true;
    throw new LockLost(job);
  }
  held.lockedAt = writing;
  held.unconfirmed = [];
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

/**
 * An entry's release (a backend's unlockJob), made safe to leave unawaited: Agenda 6.2.6 releases an entry without
 * awaiting or catching the release (JobProcessor: a lock limit reached while filling, a run too far away), so its
 * rejection (the store restarting, a connection cut) would be unhandled and end the worker process. A release that
 * fails changes nothing a run relies on: the entry's lock lapses after its lifetime and a poll takes it again.
 */
export async function releaseQuietly(release: () => Promise<void> | void): Promise<void> {
  try {
    await release();
  } catch {
    // The lock lapses by itself (above).
  }
}
