/**
 * Blobs in an S3-compatible bucket (AWS S3, MinIO, Ceph, R2...): what API instances and workers
 * on several machines share in the PostgreSQL mode (and, instead of GridFS, in the MongoDB mode).
 * Streaming both ways: uploads go through lib-storage's multipart Upload, which holds at most
 * queueSize x partSize bytes whatever the file's size; downloads stream the GetObject body.
 */
import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  S3Client,
  S3ServiceException,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { markBackendError } from '../store/backend-errors.js';
import { assertSafeKey, byteCounter, copyToDir } from './common.js';
import type { BlobStore } from './types.js';

export interface S3BlobStoreOptions {
  bucket: string;
  /** Unset for AWS; the URL of any other S3-compatible service. */
  endpoint?: string;
  region?: string;
  /** Unset: the SDK's default chain (environment, instance role...). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** Bucket in the path (http://host/bucket/key), as MinIO and most self-hosted stores want. */
  forcePathStyle?: boolean;
  /** Part size of multipart uploads (at least 5 MiB, S3's minimum); 10,000 parts of 8 MiB reach 78 GiB. */
  partSize?: number;
  /** Parts uploaded at once: memory held per upload is about partSize x queueSize. */
  queueSize?: number;
  /** Deadline of each request to the store (ms). */
  requestTimeoutMs?: number;
}

const MiB = 1024 * 1024;

const isNotFound = (err: unknown) =>
  err instanceof S3ServiceException &&
  (err.name === 'NotFound' || err.name === 'NoSuchKey' || err.$metadata.httpStatusCode === 404);

export class S3BlobStore implements BlobStore {
  readonly client: S3Client;
  private readonly bucket: string;
  private readonly partSize: number;
  private readonly queueSize: number;

  constructor(options: S3BlobStoreOptions) {
    const config: S3ClientConfig = {
      region: options.region ?? 'us-east-1',
      forcePathStyle: options.forcePathStyle ?? false,
      requestHandler: { requestTimeout: options.requestTimeoutMs ?? 60_000, connectionTimeout: 10_000 },
    };
    if (options.endpoint) config.endpoint = options.endpoint;
    if (options.credentials) config.credentials = options.credentials;
    this.client = new S3Client(config);
    // Outermost (after the SDK's retries): what still fails is marked as the service's own object
    // store's, which a request answers with 503 (core/services/unavailable.ts), unlike an export target's.
    this.client.middlewareStack.add(
      (next) => async (args) => {
        try {
          return await next(args);
        } catch (err) {
          throw markBackendError(err, 'S3');
        }
      },
      { step: 'initialize', name: 'markBackendErrors' },
    );
    this.bucket = options.bucket;
    this.partSize = Math.max(5 * MiB, options.partSize ?? 8 * MiB);
    this.queueSize = options.queueSize ?? 4;
  }

  async write(key: string, source: Readable, options: { maxBytes?: number } = {}): Promise<{ bytes: number }> {
    assertSafeKey(key);
    const counter = byteCounter(options.maxBytes);
    const body = source.pipe(counter.stream);
    // pipe() does not forward errors: a failing source must fail the upload too.
    source.once('error', (err) => counter.stream.destroy(err));
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key: key, Body: body },
      partSize: this.partSize,
      queueSize: this.queueSize,
      leavePartsOnError: false,
    });
    // The cap or a broken source stops the counter; stop the upload there, not at its end.
    const failed = new Promise<never>((_, reject) => counter.stream.once('error', reject));
    try {
      await Promise.race([upload.done(), failed]);
    } catch (err) {
      source.unpipe(counter.stream);
      source.destroy();
      await upload.abort().catch(() => undefined);
      // A blob that failed half-way is no blob: the key holds nothing afterwards (as on disk and in GridFS).
      await this.delete(key).catch(() => undefined);
      throw err;
    }
    return { bytes: counter.bytes() };
  }

  async putFile(key: string, filePath: string): Promise<{ bytes: number }> {
    return this.write(key, createReadStream(filePath));
  }

  read(key: string): Readable {
    assertSafeKey(key);
    const { client, bucket } = this;
    // Lazy: nothing is requested until the stream is read; destroying it ends the request's body.
    return Readable.from(
      (async function* () {
        const answer = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
        yield* answer.Body as Readable;
      })(),
      { objectMode: false },
    );
  }

  async localPath(key: string, dir: string): Promise<string> {
    return copyToDir(this.read(key), key, dir);
  }

  async exists(key: string): Promise<boolean> {
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: assertSafeKey(key) }));
      return true;
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    // S3 answers 204 for a key that is not there: idempotent as it is.
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: assertSafeKey(key) }));
  }

  /**
   * Objects under `prefix/` last written before `before`. Parts of multipart uploads a crashed
   * process left are not objects: the bucket's lifecycle rule (AbortIncompleteMultipartUpload,
   * docs/SCALE-OUT.md) removes them.
   */
  async listStale(prefix: string, before: Date): Promise<string[]> {
    const stale: string[] = [];
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({
          Bucket: this.bucket,
          Prefix: `${assertSafeKey(prefix)}/`,
          ContinuationToken: token,
        }),
      );
      for (const object of page.Contents ?? []) {
        if (object.Key && object.LastModified && object.LastModified < before) stale.push(object.Key);
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return stale;
  }

  /** Stops the client's sockets. */
  close(): void {
    this.client.destroy();
  }
}
