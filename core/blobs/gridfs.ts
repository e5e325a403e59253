/** Blobs in MongoDB GridFS (distributed mode): every API instance and worker sees the same files. */
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { GridFSBucket, type Collection, type Db, type ObjectId } from 'mongodb';
import { BlobTooLargeError, type BlobStore } from './types.js';

const SAFE_KEY = /^[A-Za-z0-9][A-Za-z0-9/_.-]*$/;

/**
 * The blob key is the GridFS file id, so a key names at most one file and a delete also finds
 * the chunks of an upload that died half-way. GridFS allows any id type; the driver's typings
 * only say ObjectId.
 */
function fileId(key: string): ObjectId {
  if (!SAFE_KEY.test(key) || key.includes('..')) throw new Error(`invalid blob key '${key}'`);
  return key as unknown as ObjectId;
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
    let bytes = 0;
    const limit = options.maxBytes ?? Infinity;
    // Stops the upload at the first chunk past the limit, without reading the rest.
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        bytes += chunk.length;
        if (bytes > limit) done(new BlobTooLargeError(limit));
        else done(null, chunk);
      },
    });
    try {
      await pipeline(source, counter, this.bucket.openUploadStreamWithId(id, key));
    } catch (err) {
      await this.delete(key);
      throw err;
    }
    return { bytes };
  }

  async putFile(key: string, filePath: string): Promise<{ bytes: number }> {
    return this.write(key, createReadStream(filePath));
  }

  read(key: string): Readable {
    return this.bucket.openDownloadStream(fileId(key));
  }

  async localPath(key: string, dir: string): Promise<string> {
    const target = path.join(dir, key.replaceAll('/', '_'));
    await mkdir(dir, { recursive: true });
    await pipeline(this.read(key), createWriteStream(target));
    return target;
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
    const complete = await this.files.find({ _id: under, uploadDate: { $lt: before } }, { projection: { _id: 1 } }).toArray();
    // An upload that died half-way left chunks and no files document; a chunk's ObjectId dates it.
    const partial = await this.chunks
      .aggregate<{ _id: string; last: ObjectId }>([{ $match: { files_id: under } }, { $group: { _id: '$files_id', last: { $max: '$_id' } } }])
      .toArray();
    const withFile = new Set((await this.files.find({ _id: { $in: partial.map((p) => p._id) } }, { projection: { _id: 1 } }).toArray()).map((f) => f._id));
    const orphans = partial.filter((p) => !withFile.has(p._id) && p.last.getTimestamp() < before).map((p) => p._id);
    return [...complete.map((f) => f._id), ...orphans];
  }
}
