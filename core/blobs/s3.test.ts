import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startS3Server, type S3TestServer } from '../../test/servers/s3.js';
import { blobStoreContractSuite } from './testing/suite.js';
import { S3BlobStore } from './s3.js';

let server: S3TestServer;
beforeAll(async () => {
  server = await startS3Server();
}, 30_000);
afterAll(() => server?.stop());

blobStoreContractSuite('S3BlobStore', async () => {
  const blobs = new S3BlobStore(server.options(await server.newBucket()));
  return { blobs, destroy: async () => blobs.close() };
});

describe('S3BlobStore: large files', () => {
  const MiB = 1024 * 1024;

  /**
   * `total` bytes in 1 MiB chunks, made as they are read (nothing held), each chunk's bytes a function of its index.
   */
  function generated(total: number): Readable {
    let sent = 0;
    return new Readable({
      read() {
        if (sent >= total) return void this.push(null);
        const size = Math.min(MiB, total - sent);
        this.push(Buffer.alloc(size, (sent / MiB) % 251));
        sent += size;
      },
    });
  }

  it('uploads in parts and downloads a file far larger than the memory it uses', async () => {
    const blobs = new S3BlobStore({ ...server.options(await server.newBucket()), partSize: 5 * MiB, queueSize: 2 });
    try {
      const total = 160 * MiB + 12345;
      global.gc?.();
      const before = process.memoryUsage().rss;
      let peak = before;
      const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
      try {
        expect(await blobs.write('uploads/large', generated(total))).toEqual({ bytes: total });
        // Read back, checking every byte against what was sent, without keeping it.
        let offset = 0;
        for await (const chunk of blobs.read('uploads/large') as AsyncIterable<Buffer>) {
          for (let i = 0; i < chunk.length; i += 4096) expect(chunk[i]).toBe(Math.floor((offset + i) / MiB) % 251);
          offset += chunk.length;
        }
        expect(offset).toBe(total);
      } finally {
        clearInterval(sampler);
      }
      // Parts of 5 MiB, two at a time: the process grows by tens of MiB, not by the file's 160.
      expect(peak - before).toBeLessThan(100 * MiB);
    } finally {
      blobs.close();
    }
  }, 180_000);

  it('stops a multipart upload past the cap, mid-stream, leaving nothing', async () => {
    const blobs = new S3BlobStore({ ...server.options(await server.newBucket()), partSize: 5 * MiB, queueSize: 2 });
    try {
      const source = generated(200 * MiB);
      await expect(blobs.write('uploads/capped', source, { maxBytes: 12 * MiB })).rejects.toThrow(/exceeds/);
      expect(source.destroyed).toBe(true);
      expect(await blobs.exists('uploads/capped')).toBe(false);
      expect(await blobs.listStale('uploads', new Date(Date.now() + 60_000))).toEqual([]);
    } finally {
      blobs.close();
    }
  }, 60_000);
});
