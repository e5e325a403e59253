/**
 * Request-rate windows counted in this process's memory. The embedded server is the one process
 * that counts requests on its SQLite DATA_DIR (apps/shared/data-dir-lock.ts refuses a second), so
 * counting here is as exact as counting in the file, without a write per request. Counts start
 * again when the process restarts (a window is one minute).
 */
import type { RateRepo } from '../ports/credits.js';

export function memoryRates(): RateRepo {
  /** Count per key, per window start (ms): windows are pruned by deleteBefore like the stored ones. */
  const windows = new Map<number, Map<string, number>>();
  return {
    async hit(key, windowStart) {
      let counts = windows.get(windowStart);
      if (!counts) {
        counts = new Map();
        windows.set(windowStart, counts);
      }
      const count = (counts.get(key) ?? 0) + 1;
      counts.set(key, count);
      return count;
    },
    async deleteBefore(windowStart) {
      for (const start of windows.keys()) if (start < windowStart) windows.delete(start);
    },
  };
}
