/** Removing the service's own scratch folders (a run's work folder, an acceptance's measure folder). */
import { rm, rmdir } from 'node:fs/promises';

/**
 * Removes `dir` and what it holds; a missing folder is no error. A run moves its output away and its inputs are
 * blobs elsewhere, so the folder is most often empty: one rmdir then, and the recursive walk (an lstat and a readdir
 * on the way) only for a folder that still holds files.
 */
export async function removeFolder(dir: string): Promise<void> {
  try {
    await rmdir(dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return;
    if (code !== 'ENOTEMPTY' && code !== 'EEXIST' && code !== 'ENOTDIR') throw err;
    await rm(dir, { recursive: true, force: true });
  }
}
