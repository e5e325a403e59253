import type { Readable } from 'node:stream';

export class BlobTooLargeError extends Error {
  override readonly name = 'BlobTooLargeError';
  constructor(readonly limit: number) {
    super(`blob exceeds ${limit} bytes`);
  }
}

/** Blob storage port: local disk (embedded) or GridFS (distributed). Streaming only. */
export interface BlobStore {
  /** Stream `source` into `key`; stops reading and deletes the partial blob past maxBytes. */
  write(key: string, source: Readable, options?: { maxBytes?: number }): Promise<{ bytes: number }>;
  /** Store a file from local disk (an engine's output) under `key`; the file is moved or copied. */
  putFile(key: string, filePath: string): Promise<{ bytes: number }>;
  read(key: string): Readable;
  /** A local path holding the blob's bytes, for engines that need a file. May copy into `dir`. */
  localPath(key: string, dir: string): Promise<string>;
  exists(key: string): Promise<boolean>;
  /** Idempotent. */
  delete(key: string): Promise<void>;
  /**
   * Keys under `prefix` (a folder such as `uploads`) last written before `before`, including
   * partial blobs a crashed process left behind: the orphan sweep deletes the unreferenced ones.
   */
  listStale(prefix: string, before: Date): Promise<string[]>;
}
