/**
 * Blobs as files under one directory on local disk (embedded mode). A blob is written under a temporary name and
 * renamed when complete, so a write cut short (the disk full, the source failing) leaves nothing half-written under
 * the blob's key, and a crash mid-write leaves only a `.partial` file the retention sweep removes as stale.
 */
import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { copyFile, mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
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
    await mkdir(path.dirname(target), { recursive: true });
    const counter = byteCounter(options.maxBytes);
    const partial = partialName(target);
    const file = createWriteStream(partial);
    try {
      await pipeline(source, counter.stream, file);
      await rename(partial, target);
    } catch (err) {
      // A source failing early fails the pipeline before the file has closed, perhaps before it is even open:
      // removed then, the open would create it afterwards, a partial left for good. Wait for the close first.
      if (!file.closed) await new Promise<void>((closed) => file.once('close', () => closed()));
      await rm(partial, { force: true });
      throw err;
    }
    return { bytes: counter.bytes() };
  }

  async putFile(key: string, filePath: string): Promise<{ bytes: number }> {
    const target = this.pathOf(key);
    await mkdir(path.dirname(target), { recursive: true });
    try {
      await rename(filePath, target);
    } catch {
      // Work dirs may sit on another device: copied under a temporary name first (the copy may fill the disk).
      const partial = partialName(target);
      try {
        await copyFile(filePath, partial);
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

/** Beside the blob, so the final rename stays on one file system. */
const partialName = (target: string) => `${target}.${randomUUID().slice(0, 8)}.partial`;
