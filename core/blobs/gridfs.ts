/** Blobs in MongoDB GridFS (distributed mode): every API instance and worker sees the same files. */
import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { GridFSBucket, type Collection, type Db, type ObjectId } from 'mongodb';
import { assertSafeKey, byteCounter, copyToDir } from './common.js';
import type { BlobStore } from './types.js';

/**
 * The blob key is the GridFS file id, so a key names at most one file and a delete also finds
 * the chunks of an upload that died half-way. GridFS allows any id type; the driver's typings
 * only say ObjectId.
 */
function fileId(key: string): ObjectId {
  return assertSafeKey(key) as unknown as ObjectId;
}

export class GridFsBlobStore implements BlobStore {
  private readonly bucket: GridFSBucket;
  private readonly files: Collection<{ _id: string; uploadDate: Date }>;
  private readonly chunks: Collection<{ _id: ObjectId; files_id: string }>;

  constructor(db: Db, bucketName = 'blobs') {
    this.bucket = new GridFSBucket(db, { bucketName });
    this.files = db.collection(`${bucketName}.files`);
    this.chunks = db.collection(`${bucketName}.chunks`);
  }

  async write(key: string, source: Readable, options: { maxBytes?: number } = {}): Promise<{ bytes: number }> {
    const id = fileId(key);
    // A key is written again when a job is retried after a crash: start from nothing.
    await this.delete(key);
    // Stops the upload at the first chunk past the limit, without reading the rest.
    const counter = byteCounter(options.maxBytes);
    try {
      await pipeline(source, counter.stream, this.bucket.openUploadStreamWithId(id, key));
    } catch (err) {
      await this.delete(key);
      throw err;
    }
    return { bytes: counter.bytes() };
  }

  async putFile(key: string, filePath: string): Promise<{ bytes: number }> {
    return this.write(key, createReadStream(filePath));
  }

  read(key: string): Readable {
    return this.bucket.openDownloadStream(fileId(key));
  }

  async localPath(key: string, dir: string): Promise<string> {
    return copyToDir(this.read(key), key, dir);
  }

  async exists(key: string): Promise<boolean> {
    // The files document is written last, once every chunk is in: it marks a complete blob.
    return (await this.files.countDocuments({ _id: String(fileId(key)) }, { limit: 1 })) > 0;
  }

  async delete(key: string): Promise<void> {
    const id = String(fileId(key));
    // Not GridFSBucket.delete: it throws for a missing file, and deletes must be idempotent.
    await this.files.deleteOne({ _id: id });
    await this.chunks.deleteMany({ files_id: id });
  }

  async listStale(prefix: string, before: Date): Promise<string[]> {
    const under = { $regex: `^${prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/` };
    const complete = await this.files
      .find({ _id: under, uploadDate: { $lt: before } }, { projection: { _id: 1 } })
      .toArray();
    // An upload that died half-way left chunks and no files document; a chunk's ObjectId dates it.
    const partial = await this.chunks
      .aggregate<{ _id: string; last: ObjectId }>([
        { $match: { files_id: under } },
        { $group: { _id: '$files_id', last: { $max: '$_id' } } },
      ])
      .toArray();
    const withFile = new Set(
      (await this.files.find({ _id: { $in: partial.map((p) => p._id) } }, { projection: { _id: 1 } }).toArray()).map(
        (f) => f._id,
      ),
    );
    const orphans = partial.filter((p) => !withFile.has(p._id) && p.last.getTimestamp() < before).map((p) => p._id);
    return [...complete.map((f) => f._id), ...orphans];
  }
}
