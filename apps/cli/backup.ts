/**
 * Backup and restore of the embedded mode (docs/OPERATIONS.md): the SQLite store copied with SQLite's online backup API
 * while the service runs, the blobs its jobs reference (uploads not yet deleted, unexpired outputs) and the server
 * secret (DATA_DIR/secret-key: download links and sealed webhook secrets derive from it). A blob is written once under
 * its key and never changed (core/blobs/local.ts), so the blobs copied after the database's snapshot are those it
 * references; one the retention sweep deleted meanwhile had expired, and is counted as `missingBlobs`.
 */
import { chmod, copyFile, mkdir, readdir, rename, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import Database from 'better-sqlite3';
import { assertSafeKey } from '../../core/blobs/common.js';
import { lockDataDirForApi } from '../shared/data-dir-lock.js';
import { SECRET_KEY_FILE } from '../shared/secret-key.js';

const DATABASE_FILE = 'transmute.db';
const BLOBS_DIR = 'blobs';
const MANIFEST_FILE = 'transmute-backup.json';
const FORMAT = 1;

/** A refusal the CLI prints as `{ error }` (exit code 1). */
export class BackupError extends Error {
  override readonly name = 'BackupError';
}

export interface BackupSummary {
  backup: string;
  databaseBytes: number;
  blobs: number;
  blobBytes: number;
  /** Referenced by the snapshot but deleted by the retention sweep before they were copied (they had expired). */
  missingBlobs: number;
  secretKey: boolean;
}

export interface RestoreSummary {
  restored: string;
  from: string;
  databaseBytes: number;
  blobs: number;
  blobBytes: number;
  secretKey: boolean;
}

/** Entries of `dir` that count against "empty" (a file system's own lost+found does not); [] when it is missing. */
async function contentsOf(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).filter((name) => name !== 'lost+found');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}

/** Every blob key the store's jobs reference: their uploads still kept, and their outputs. */
function referencedBlobs(db: Database.Database): string[] {
  const keys = new Set<string>();
  const rows = db.prepare('SELECT inputs, output FROM jobs').all() as Array<{ inputs: string; output: string | null }>;
  for (const row of rows) {
    for (const input of JSON.parse(row.inputs) as Array<{ blobKey?: string; source?: unknown }>) {
      // A URL import not fetched yet has a key but no blob.
      if (input.blobKey) keys.add(input.blobKey);
    }
    const output = row.output ? (JSON.parse(row.output) as { blobKey?: string }) : null;
    if (output?.blobKey) keys.add(output.blobKey);
  }
  return [...keys];
}

/** Copies the blobs `keys` from one blobs folder to another; counts those copied, their bytes and those missing. */
async function copyBlobs(keys: string[], from: string, to: string) {
  let blobs = 0;
  let blobBytes = 0;
  let missing = 0;
  for (const key of keys) {
    const source = path.join(from, assertSafeKey(key));
    const target = path.join(to, key);
    await mkdir(path.dirname(target), { recursive: true });
    try {
      await copyFile(source, target);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      missing++;
      continue;
    }
    blobs++;
    blobBytes += (await stat(target)).size;
  }
  return { blobs, blobBytes, missing };
}

/** An integrity-checked SQLite file: throws BackupError otherwise. */
function checkDatabase(file: string): void {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const verdict = db.pragma('integrity_check', { simple: true });
    if (verdict !== 'ok') throw new BackupError(`The database copy in ${file} is damaged: ${String(verdict)}`);
  } finally {
    db.close();
  }
}

/**
 * Back up the embedded store of `dataDir` into `target` (a new or empty folder), while the service runs: the
 * database through SQLite's online backup API (a consistent snapshot, writers go on meanwhile), then the blobs it
 * references and the server secret.
 */
export async function backupEmbedded(dataDir: string, target: string): Promise<BackupSummary> {
  const database = path.join(dataDir, DATABASE_FILE);
  if (!(await exists(database))) throw new BackupError(`No embedded store in ${dataDir} (no ${DATABASE_FILE})`);
  if ((await contentsOf(target)).length) throw new BackupError(`The backup folder ${target} is not empty`);
  // The copy holds the server secret and every account's data: readable by its owner only.
  await mkdir(target, { recursive: true, mode: 0o700 });
  await chmod(target, 0o700);
  const copy = path.join(target, DATABASE_FILE);
  const source = new Database(database, { fileMustExist: true, timeout: 10_000 });
  try {
    await source.backup(copy);
  } finally {
    source.close();
  }
  await chmod(copy, 0o600);
  checkDatabase(copy);
  const snapshot = new Database(copy, { readonly: true });
  let keys: string[];
  try {
    keys = referencedBlobs(snapshot);
  } finally {
    snapshot.close();
  }
  const copied = await copyBlobs(keys, path.join(dataDir, BLOBS_DIR), path.join(target, BLOBS_DIR));
  const secretKey = await exists(path.join(dataDir, SECRET_KEY_FILE));
  if (secretKey) await copyFile(path.join(dataDir, SECRET_KEY_FILE), path.join(target, SECRET_KEY_FILE));
  const summary: BackupSummary = {
    backup: target,
    databaseBytes: (await stat(copy)).size,
    blobs: copied.blobs,
    blobBytes: copied.blobBytes,
    missingBlobs: copied.missing,
    secretKey,
  };
  // Written last: a folder without it is a backup that did not finish.
  await writeFile(
    path.join(target, MANIFEST_FILE),
    `${JSON.stringify({ format: FORMAT, createdAt: new Date().toISOString(), ...summary })}\n`,
    { mode: 0o600 },
  );
  return summary;
}

/**
 * Restore the backup in `from` into `dataDir`, which must be empty (or missing) with no service on it: the folder is
 * held with the API server's lock while it is filled, so a server started meanwhile refuses to start.
 */
export async function restoreEmbedded(from: string, dataDir: string): Promise<RestoreSummary> {
  if (!(await exists(path.join(from, MANIFEST_FILE)))) {
    throw new BackupError(`${from} is not a finished Transmute backup (no ${MANIFEST_FILE})`);
  }
  const present = await contentsOf(dataDir);
  if (present.length) {
    // A running server holds DATA_DIR/api.lock: say so rather than only "not empty".
    if (present.includes('api.lock')) {
      try {
        lockDataDirForApi(dataDir).release();
      } catch {
        throw new BackupError(
          `A Transmute server is running on ${dataDir}: stop the service, then restore into an empty DATA_DIR`,
        );
      }
    }
    throw new BackupError(
      `DATA_DIR ${dataDir} is not empty: restore fills an empty DATA_DIR only (move this one aside first)`,
    );
  }
  checkDatabase(path.join(from, DATABASE_FILE));
  await mkdir(dataDir, { recursive: true });
  const lock = lockDataDirForApi(dataDir);
  try {
    const snapshot = new Database(path.join(from, DATABASE_FILE), { readonly: true });
    let keys: string[];
    try {
      keys = referencedBlobs(snapshot);
    } finally {
      snapshot.close();
    }
    const copied = await copyBlobs(keys, path.join(from, BLOBS_DIR), path.join(dataDir, BLOBS_DIR));
    const secretKey = await exists(path.join(from, SECRET_KEY_FILE));
    if (secretKey) {
      await copyFile(path.join(from, SECRET_KEY_FILE), path.join(dataDir, SECRET_KEY_FILE));
      await chmod(path.join(dataDir, SECRET_KEY_FILE), 0o600);
    }
    // The database last, under its name only once whole: a restore cut short leaves no store that looks complete.
    const database = path.join(dataDir, DATABASE_FILE);
    await copyFile(path.join(from, DATABASE_FILE), `${database}.restoring`);
    await rename(`${database}.restoring`, database);
    return {
      restored: dataDir,
      from,
      databaseBytes: (await stat(database)).size,
      blobs: copied.blobs,
      blobBytes: copied.blobBytes,
      secretKey,
    };
  } finally {
    lock.release();
  }
}
