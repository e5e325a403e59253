/** Free space on DATA_DIR's file system, for /readyz and the readiness gauge. */
import { statfs } from 'node:fs/promises';

const MB = 1024 * 1024;

/**
 * `ok`, or `low: N MB free` when DATA_DIR's file system has less than `minFreeMb` left for this process (blocks
 * available to unprivileged users, as a write would find them); `error: ...` when it cannot be read.
 */
export async function diskCheck(dataDir: string, minFreeMb: number): Promise<string> {
  if (minFreeMb <= 0) return 'ok';
  try {
    const { bavail, bsize } = await statfs(dataDir);
    const freeMb = Math.floor((bavail * bsize) / MB);
    return freeMb < minFreeMb ? `low: ${freeMb} MB free` : 'ok';
  } catch (err) {
    return `error: ${(err as NodeJS.ErrnoException).code ?? 'unreadable'}`;
  }
}
