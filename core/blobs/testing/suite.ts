/** The one contract every BlobStore adapter passes; each adapter's test file calls `blobStoreContractSuite`. */
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BlobTooLargeError, type BlobStore } from '../types.js';

/** A blob store on fresh, empty storage for one test. */
export interface BlobStorage {
  blobs: BlobStore;
  /** Closes and deletes the storage. */
  destroy(): Promise<void>;
}

const CHUNK = 64 * 1024;

/** A stream of `count` chunks that records how many were read. */
function countingSource(count: number, chunk = randomBytes(CHUNK)): { stream: Readable; pulled: () => number } {
  let pulled = 0;
  const stream = Readable.from(
    (function* () {
      for (; pulled < count; ) {
        pulled++;
        yield chunk;
      }
    })(),
  );
  return { stream, pulled: () => pulled };
}

export function blobStoreContractSuite(name: string, createStorage: () => Promise<BlobStorage>): void {
  describe(`${name}: blob store contract`, () => {
    let storage: BlobStorage;
    let blobs: BlobStore;
    let workDir: string;

    beforeEach(async () => {
      storage = await createStorage();
      blobs = storage.blobs;
      workDir = await mkdtemp(path.join(os.tmpdir(), 'transmute-blob-work-'));
    });

    afterEach(async () => {
      await storage.destroy();
      await rm(workDir, { recursive: true, force: true });
    });

    it('streams a blob in and out unchanged, across many chunks', async () => {
      const data = randomBytes(700 * 1024 + 123);
      expect(await blobs.write('uploads/big', Readable.from([data.subarray(0, 1000), data.subarray(1000)]))).toEqual({
        bytes: data.length,
      });
      expect(await blobs.exists('uploads/big')).toBe(true);
      expect((await buffer(blobs.read('uploads/big'))).equals(data)).toBe(true);
    });

    it('stores an empty blob', async () => {
      expect(await blobs.write('uploads/empty', Readable.from([]))).toEqual({ bytes: 0 });
      expect(await blobs.exists('uploads/empty')).toBe(true);
      expect((await buffer(blobs.read('uploads/empty'))).length).toBe(0);
    });

    it('accepts a blob of exactly maxBytes', async () => {
      expect(await blobs.write('uploads/edge', Readable.from([Buffer.alloc(1000, 1)]), { maxBytes: 1000 })).toEqual({
        bytes: 1000,
      });
    });

    it('stops reading past maxBytes, rejects, and leaves no partial blob', async () => {
      const source = countingSource(200);
      const written = blobs.write('uploads/huge', source.stream, { maxBytes: 5 * CHUNK + 1 });
      await expect(written).rejects.toBeInstanceOf(BlobTooLargeError);
      expect(source.pulled()).toBeLessThan(20);
      expect(await blobs.exists('uploads/huge')).toBe(false);
    });

    it('replaces a blob written again under the same key', async () => {
      await blobs.write('outputs/job', Readable.from([Buffer.from('first attempt, longer')]));
      await blobs.write('outputs/job', Readable.from([Buffer.from('second')]));
      expect((await buffer(blobs.read('outputs/job'))).toString()).toBe('second');
    });

    it('stores a local file with putFile', async () => {
      const file = path.join(workDir, 'engine-output.md');
      await writeFile(file, '# Converted\n');
      expect(await blobs.putFile('outputs/from-file', file)).toEqual({ bytes: 12 });
      expect((await buffer(blobs.read('outputs/from-file'))).toString()).toBe('# Converted\n');
    });

    it('gives a local path holding the bytes, distinct per key', async () => {
      await blobs.write('uploads/a/0', Readable.from([Buffer.from('alpha')]));
      await blobs.write('uploads/b/0', Readable.from([Buffer.from('beta')]));
      const first = await blobs.localPath('uploads/a/0', workDir);
      const second = await blobs.localPath('uploads/b/0', workDir);
      expect(first).not.toBe(second);
      expect(await readFile(first, 'utf8')).toBe('alpha');
      expect(await readFile(second, 'utf8')).toBe('beta');
    });

    it('deletes idempotently', async () => {
      await blobs.write('uploads/gone', Readable.from([Buffer.from('x')]));
      await blobs.delete('uploads/gone');
      await blobs.delete('uploads/gone');
      await blobs.delete('uploads/never-written');
      expect(await blobs.exists('uploads/gone')).toBe(false);
    });

    it('fails to read a missing blob', async () => {
      await expect(buffer(blobs.read('uploads/missing'))).rejects.toThrow();
    });

    it('lists the blobs under a folder written before a time, for the orphan sweep', async () => {
      await blobs.write('uploads/old', Readable.from([Buffer.from('x')]));
      await blobs.write('outputs/other', Readable.from([Buffer.from('y')]));
      const later = new Date(Date.now() + 60_000);
      expect(await blobs.listStale('uploads', later)).toEqual(['uploads/old']);
      expect(await blobs.listStale('uploads', new Date(Date.now() - 60_000))).toEqual([]);
      expect(await blobs.listStale('nothing-here', later)).toEqual([]);
    });

    it('refuses keys that could escape the store', async () => {
      await expect(blobs.write('../escape', Readable.from([Buffer.from('x')]))).rejects.toThrow(/invalid blob key/);
      await expect(blobs.write('/absolute', Readable.from([Buffer.from('x')]))).rejects.toThrow(/invalid blob key/);
    });
  });
}
