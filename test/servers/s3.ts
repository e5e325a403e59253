/**
 * A real S3-compatible server for tests: s3rver (npm) in a child process, on a random port of
 * 127.0.0.1, storing under a temporary folder that stop() removes. A child process keeps its
 * memory out of the test's own (the flat-memory upload test measures ours).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import type { S3BlobStoreOptions } from '../../core/blobs/s3.js';

/** s3rver's fixed credentials. */
export const S3RVER_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

export interface S3TestServer {
  endpoint: string;
  /** Options for an S3BlobStore on `bucket` of this server. */
  options(bucket: string): S3BlobStoreOptions;
  /** Creates a bucket with a unique name and returns the name. */
  newBucket(): Promise<string>;
  /** The environment a Transmute process needs to use `bucket`. */
  env(bucket: string): Record<string, string>;
  /** Kills the server (SIGKILL: requests in flight are cut); its objects stay for startServer. */
  stopServer(): Promise<void>;
  /** Starts it again on the same port and folder. */
  startServer(): Promise<void>;
  stop(): Promise<void>;
}

function spawnS3rver(directory: string, port: number): Promise<{ child: ChildProcess; port: number }> {
  const child: ChildProcess = spawn(process.execPath, ['-e', CHILD, directory, String(port)], {
    stdio: ['ignore', 'pipe', 'inherit'],
    cwd: process.cwd(),
  });
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', (line) => resolve({ child, port: (JSON.parse(line) as { port: number }).port }));
    child.once('exit', (code) => reject(new Error(`s3rver exited with ${code}`)));
  });
}

async function killChild(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

// s3rver removes a folder left empty by a delete; a put into that folder at the same moment (a
// worker deleting a job's input while an API stores the next upload under uploads/) then opens
// its file in a folder just removed, and the write stream's unhandled error kills the server.
// Here deletes leave folders in place (listings read object files only, so nothing else changes).
const CHILD =
  `
const S3rver = require('s3rver');
const FilesystemStore = require('s3rver/lib/stores/filesystem');
const { unlink } = require('node:fs/promises');
FilesystemStore.prototype.deleteObject = async function (bucket, key) {
  await Promise.all(['object', 'object.md5', 'metadata.json'].map((type) =>
    unlink(this.getResourcePath(bucket, key, type)).catch((err) => { if (err.code !== 'ENOENT') throw err; })));
};
const port = Number(process.argv[2] ?? 0);
const server = new S3rver({ address: '127.0.0.1', port, silent: true, directory: process.argv[1] });
server.run().then((address) => console.log(JSON.stringify({ port: address.port })), (err) =>` +
  ` { console.error(err); process.exit(1); });
process.on('SIGTERM', () => server.close(() => process.exit(0)));
`;

export async function startS3Server(): Promise<S3TestServer> {
  const directory = await mkdtemp(path.join(os.tmpdir(), 'transmute-s3rver-'));
  let { child, port } = await spawnS3rver(directory, 0);
  const endpoint = `http://127.0.0.1:${port}`;
  const options = (bucket: string): S3BlobStoreOptions => ({
    bucket,
    endpoint,
    region: 'us-east-1',
    credentials: S3RVER_CREDENTIALS,
    forcePathStyle: true,
  });
  return {
    endpoint,
    options,
    async newBucket() {
      const bucket = `t-${randomUUID().slice(0, 13)}`;
      const client = new S3Client({
        endpoint,
        region: 'us-east-1',
        credentials: S3RVER_CREDENTIALS,
        forcePathStyle: true,
      });
      try {
        await client.send(new CreateBucketCommand({ Bucket: bucket }));
      } finally {
        client.destroy();
      }
      return bucket;
    },
    env: (bucket) => ({
      S3_ENDPOINT: endpoint,
      S3_BUCKET: bucket,
      S3_REGION: 'us-east-1',
      S3_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
      S3_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
      S3_FORCE_PATH_STYLE: 'true',
    }),
    async stopServer() {
      await killChild(child, 'SIGKILL');
    },
    async startServer() {
      if (child.exitCode === null && child.signalCode === null) return;
      ({ child, port } = await spawnS3rver(directory, port));
    },
    async stop() {
      await killChild(child, 'SIGTERM');
      await rm(directory, { recursive: true, force: true });
    },
  };
}
