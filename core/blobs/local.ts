/**
 * Blobs as files under one directory on local disk (embedded mode). A blob is written under a temporary name and
 * renamed when complete, so a write cut short (the disk full, the source failing) leaves nothing half-written under
 * the blob's key, and a crash mid-write leaves only a `.partial` file the retention sweep removes as stale.
 */
import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { copyFile, mkdir, open, readdir, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { assertSafeKey, byteCounter } from './common.js';
import type { BlobStore } from './types.js';

export class LocalBlobStore implements BlobStore {
  constructor(private readonly root: string) {}

  private pathOf(key: string): string {
    return path.join(this.root, assertSafeKey(key));
  }

  async write(key: string, source: Readable, options: { maxBytes?: number } = {}): Promise<{ bytes: number }> {
    const target = this.pathOf(key);
    const counter = byteCounter(options.maxBytes);
    const partial = partialName(target);
    // Opened before the source is read, so a missing folder is made and the open tried again with nothing consumed.
    let handle: FileHandle;
    try {
      handle = await inFolder(target, () => open(partial, 'w'));
    } catch (err) {
      source.destroy();
      throw err;
    }
    const file = createWriteStream(partial, { fd: handle });
    try {
      await pipeline(source, counter.stream, file);
      await rename(partial, target);
    } catch (err) {
      // A source failing early fails the pipeline before the file has closed: wait for the close, then remove it.
      if (!file.closed) await new Promise<void>((closed) => file.once('close', () => closed()));
      await rm(partial, { force: true });
      throw err;
    }
    return { bytes: counter.bytes() };
  }

  async putFile(key: string, filePath: string): Promise<{ bytes: number }> {
    const target = this.pathOf(key);
    try {
      await inFolder(target, () => rename(filePath, target));
    } catch {
      // Work dirs may sit on another device: copied under a temporary name first (the copy may fill the disk).
      const partial = partialName(target);
      try {
        await inFolder(target, () => copyFile(filePath, partial));
        await rename(partial, target);
      } catch (err) {
        await rm(partial, { force: true });
        throw err;
      }
    }
    return { bytes: (await stat(target)).size };
  }

  read(key: string): Readable {
    return createReadStream(this.pathOf(key));
  }

  async localPath(key: string): Promise<string> {
    return this.pathOf(key);
  }

  async exists(key: string): Promise<boolean> {
    try {
      await stat(this.pathOf(key));
      return true;
    } catch {
      return false;
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }

  async listStale(prefix: string, before: Date): Promise<string[]> {
    const dir = this.pathOf(prefix);
    const names = await readdir(dir, { recursive: true }).catch(() => [] as string[]);
    const stale: string[] = [];
    for (const name of names) {
      const info = await stat(path.join(dir, name)).catch(() => undefined);
      if (info?.isFile() && info.mtime < before) stale.push(`${prefix}/${name.split(path.sep).join('/')}`);
    }
    return stale;
  }
}

/**
 * `create` makes an entry in `target`'s folder; the folder is made only when it is missing (ENOENT), then `create`
 * runs again: a folder made once serves every later blob without a mkdir each.
 */
async function inFolder<T>(target: string, create: () => Promise<T>): Promise<T> {
  try {
    return await create();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    await mkdir(path.dirname(target), { recursive: true });
    return create();
  }
}

/** Beside the blob, so the final rename stays on one file system. */
const partialName = (target: string) => `${target}.${randomUUID().slice(0, 8)}.partial`;
