/**
 * What acceptance's work measures learnt of uploaded files (a media probe), kept in memory for the runs of this
 * process: a job run here reads it instead of starting the engine on the same file again. Keyed by blob key (an
 * upload's bytes never change under its key). A job run by another process (a separate worker) finds nothing here
 * and measures itself, as it always did; so does a retried attempt (the first took the entry).
 */
import type { InputFacts } from '../contract/index.js';

export interface InputFactsLimits {
  /** Entries at most; the oldest go first. */
  maxEntries: number;
  /** An entry no run took within this long is dropped (its job is run elsewhere, or was cancelled). */
  ttlMs: number;
  /** Facts larger than this as JSON are not kept (a probe full of tags): the run reads the file itself. */
  maxEntryChars: number;
}

// A probe of an ordinary video is about 4 KB: at most a few MB held, in a process whose memory is watched.
const DEFAULT_LIMITS: InputFactsLimits = { maxEntries: 256, ttlMs: 15 * 60_000, maxEntryChars: 32 * 1024 };

export class InputFactsCache {
  private readonly entries = new Map<string, { facts: InputFacts; until: number }>();
  private readonly limits: InputFactsLimits;

  constructor(
    limits: Partial<InputFactsLimits> = {},
    private readonly now: () => number = Date.now,
  ) {
    this.limits = { ...DEFAULT_LIMITS, ...limits };
  }

  put(blobKey: string, facts: InputFacts | undefined): void {
    if (!facts || JSON.stringify(facts).length > this.limits.maxEntryChars) return;
    this.dropExpired();
    this.entries.delete(blobKey);
    this.entries.set(blobKey, { facts, until: this.now() + this.limits.ttlMs });
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.limits.maxEntries) break;
      this.entries.delete(oldest);
    }
  }

  /** The facts of `blobKey`, once: the entry goes with them. */
  take(blobKey: string): InputFacts | undefined {
    const entry = this.entries.get(blobKey);
    this.entries.delete(blobKey);
    return entry && entry.until > this.now() ? entry.facts : undefined;
  }

  get size(): number {
    return this.entries.size;
  }

  private dropExpired(): void {
    const now = this.now();
    // Insertion order is expiry order (one TTL for all): stop at the first live entry.
    for (const [key, entry] of this.entries) {
      if (entry.until > now) break;
      this.entries.delete(key);
    }
  }
}
