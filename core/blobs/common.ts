/** What blob adapters do the same way: safe keys, the size cap enforced mid-stream, copies to local disk. */
import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { BlobTooLargeError } from './types.js';

const SAFE_KEY = /^[A-Za-z0-9][A-Za-z0-9/_.-]*$/;

/** Keys are relative paths of safe characters: none can climb out of a folder or a bucket prefix. */
export function assertSafeKey(key: string): string {
  if (!SAFE_KEY.test(key) || key.includes('..')) throw new Error(`invalid blob key '${key}'`);
  return key;
}

/** Counts bytes through it and fails at the first chunk past `limit`, without reading the rest. */
export function byteCounter(limit = Infinity): { stream: Transform; bytes: () => number } {
  let bytes = 0;
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      if (bytes > limit) done(new BlobTooLargeError(limit));
      else done(null, chunk);
    },
  });
  return { stream, bytes: () => bytes };
}

/** Streams a remote blob into `dir` (a file named after its key) for engines that need a path. */
export async function copyToDir(source: Readable, key: string, dir: string): Promise<string> {
  const target = path.join(dir, key.replaceAll('/', '_'));
  await mkdir(dir, { recursive: true });
  await pipeline(source, createWriteStream(target));
  return target;
}
