/** Blobs as files under one directory on local disk (embedded mode). */
import { createReadStream, createWriteStream } from 'node:fs';
import { copyFile, mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { BlobTooLargeError, type BlobStore } from './types.js';

const SAFE_KEY = /^[A-Za-z0-9][A-Za-z0-9/_.-]*$/;

export class LocalBlobStore implements BlobStore {
  constructor(private readonly root: string) {}

  private pathOf(key: string): string {
    if (!SAFE_KEY.test(key) || key.includes('..')) throw new Error(`invalid blob key '${key}'`);
    return path.join(this.root, key);
  }

  async write(key: string, source: Readable, options: { maxBytes?: number } = {}): Promise<{ bytes: number }> {
    const target = this.pathOf(key);
    await mkdir(path.dirname(target), { recursive: true });
    let bytes = 0;
    const limit = options.maxBytes ?? Infinity;
    const counter = new Transform({
      transform(chunk: Buffer, _enc, done) {
        bytes += chunk.length;
        if (bytes > limit) done(new BlobTooLargeError(limit));
        else done(null, chunk);
      },
    });
    try {
      await pipeline(source, counter, createWriteStream(target));
    } catch (err) {
      await rm(target, { force: true });
      throw err;
    }
    return { bytes };
  }

  async putFile(key: string, filePath: string): Promise<{ bytes: number }> {
    const target = this.pathOf(key);
    await mkdir(path.dirname(target), { recursive: true });
    try {
      await rename(filePath, target);
    } catch {
      // work dirs may sit on another device
      await copyFile(filePath, target);
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
