/**
 * Where request-scoped temporary files live: DATA_DIR/tmp/<pid>, one folder per process. Today
 * that is GraphQL uploads' fs-capacitor buffers (apps/server/graphql/uploads.ts), each deleted
 * when its request ends. A process killed mid-request leaves its folder behind: the sweep removes
 * the folders of processes that are gone (at start-up and periodically), and in live folders any
 * file untouched for longer than a request may take, so upload bytes never outlive the 1-hour rule.
 */
import { readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { isProcessAlive } from '../../core/engines/execution/process-tree.js';

/** A file no request has written for this long is abandoned (well inside the 1-hour retention). */
const ABANDONED_MS = 30 * 60_000;
const SWEEP_EVERY_MS = 5 * 60_000;

export function requestTempDir(dataDir: string): string {
  return path.join(dataDir, 'tmp', String(process.pid));
}

/** Remove what dead processes left and what live ones abandoned; returns how many entries went. */
export async function sweepRequestTemp(dataDir: string, now = Date.now()): Promise<number> {
  const root = path.join(dataDir, 'tmp');
  let removed = 0;
  for (const entry of await readdir(root, { withFileTypes: true }).catch(() => [])) {
    const full = path.join(root, entry.name);
    const pid = Number(entry.name);
    if (!entry.isDirectory() || !Number.isInteger(pid) || !isProcessAlive(pid)) {
      await rm(full, { recursive: true, force: true });
      removed++;
      continue;
    }
    for (const name of await readdir(full).catch(() => [] as string[])) {
      const info = await stat(path.join(full, name)).catch(() => undefined);
      if (info && now - info.mtimeMs > ABANDONED_MS) {
        await rm(path.join(full, name), { recursive: true, force: true });
        removed++;
      }
    }
  }
  return removed;
}

/** Sweep now and every few minutes until stopped (the timer never keeps the process alive). */
export function startTempSweeper(dataDir: string, onError: (err: Error) => void): () => void {
  const sweep = () => void sweepRequestTemp(dataDir).catch(onError);
  sweep();
  const timer = setInterval(sweep, SWEEP_EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
}
