/**
 * What acceptance measured of a job's uploads (its pages or seconds, and what the measure read on the way: a media
 * probe), kept in memory for a run of the same files in this process: a job run here takes it instead of starting
 * the engines on the same files again (an office file's page count read twice was a fifth of the server's time
 * before the conversion; a second ffprobe a quarter of a short video's overhead: bench/NOTES.md). Keyed by the plugin
 * and the upload blobs (an upload's bytes never change under its key). A job run by another process finds nothing
 * here and measures itself, as it always did; so does a retried attempt (the first took the entry).
 */
import type { InputFacts } from '../contract/index.js';

export interface AcceptedMeasuresLimits {
  /** Entries at most; the oldest go first. */
  maxEntries: number;
  /** An entry no run took within this long is dropped (its job is run elsewhere, or was cancelled). */
  ttlMs: number;
  /** Facts larger than this as JSON are not kept (a probe full of tags): the run reads the file itself. */
  maxFactsChars: number;
}

/** What acceptance measured: the total, and each input's facts in the order of the job's inputs. */
export interface AcceptedMeasure {
  measured: number | undefined;
  facts: ReadonlyArray<InputFacts | undefined>;
}

type StoredInputs = ReadonlyArray<{ blobKey: string; format: string }>;

// A probe of an ordinary video is about 4 KB: at most a few MB held, in a process whose memory is watched.
const DEFAULT_LIMITS: AcceptedMeasuresLimits = { maxEntries: 1_000, ttlMs: 15 * 60_000, maxFactsChars: 32 * 1024 };

const keyOf = (pluginId: string, files: StoredInputs) =>
  JSON.stringify([pluginId, ...files.map((file) => [file.blobKey, file.format])]);

export class AcceptedMeasures {
  private readonly entries = new Map<string, { measure: AcceptedMeasure; until: number }>();
  private readonly limits: AcceptedMeasuresLimits;

  constructor(
    limits: Partial<AcceptedMeasuresLimits> = {},
    private readonly now: () => number = Date.now,
  ) {
    this.limits = { ...DEFAULT_LIMITS, ...limits };
  }

  put(pluginId: string, files: StoredInputs, measure: AcceptedMeasure): void {
    // Facts too large to hold are read again by the run; the total is kept all the same.
    const facts = JSON.stringify(measure.facts).length > this.limits.maxFactsChars ? [] : measure.facts;
    const key = keyOf(pluginId, files);
    this.dropExpired();
    this.entries.delete(key);
    this.entries.set(key, { measure: { measured: measure.measured, facts }, until: this.now() + this.limits.ttlMs });
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.limits.maxEntries) break;
      this.entries.delete(oldest);
    }
  }

  /** What acceptance measured of these files for `pluginId`, once: the entry goes with it. */
  take(pluginId: string, files: StoredInputs): AcceptedMeasure | undefined {
    const key = keyOf(pluginId, files);
    const entry = this.entries.get(key);
    this.entries.delete(key);
    return entry && entry.until > this.now() ? entry.measure : undefined;
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
