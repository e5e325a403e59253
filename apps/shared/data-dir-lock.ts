/**
 * One API server per embedded DATA_DIR. The embedded server counts requests per minute in its own
 * memory (core/store/memory/rates.ts): exact only while it is the one process serving that
 * DATA_DIR, so a second server on the same directory refuses to start. Workers and the admin CLI
 * share the directory freely (they count no requests). Scale-out (PostgreSQL, MongoDB) counts in
 * the shared store and runs any number of API processes.
 *
 * The lock is SQLite's own exclusive lock on DATA_DIR/api.lock, held by an open transaction: the
 * operating system drops it when the process ends, however it ends (kill -9 too), so a restart
 * never waits for a stale lock to expire.
 */
import path from 'node:path';
import Database from 'better-sqlite3';

export interface DataDirLock {
  release(): void;
}

export function lockDataDirForApi(dataDir: string): DataDirLock {
  const file = path.join(dataDir, 'api.lock');
  const db = new Database(file, { timeout: 0 });
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    db.close();
    if ((error as { code?: string }).code !== 'SQLITE_BUSY') throw error;
    throw new Error(
      `Another Transmute server is serving ${dataDir}: the embedded store has one API server per DATA_DIR (it ` +
        'counts requests per minute in memory). Stop it, use another DATA_DIR, or scale out with POSTGRES_URL ' +
        '(docs/SCALE-OUT.md); workers may share the DATA_DIR',
    );
  }
  return {
    release() {
      if (db.open) db.close();
    },
  };
}
