/**
 * The classifier on real errors, made for real: node-postgres against a stopped PostgreSQL, a
 * closed port, a server that never answers and one that hangs up; the S3 client against a closed
 * port and a store answering 503; MongoDB with no server; two SQLite connections on one file.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { type Server, type Socket, createServer as createTcpServer } from 'node:net';
import { createServer as createHttpServer } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { S3Client, HeadObjectCommand } from '@aws-sdk/client-s3';
import Database from 'better-sqlite3';
import { MongoClient } from 'mongodb';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../test/helpers.js';
import { startPostgres, type PostgresTestServer } from '../../test/servers/postgres.js';
import { S3BlobStore } from '../blobs/s3.js';
import { MarkedClient } from '../store/postgres/db.js';
import { ServiceError, badRequest } from './errors.js';
import { UNAVAILABLE_RETRY_AFTER_SECONDS, backendUnavailable, expectedError, storageFull } from './unavailable.js';

const failureOf = async (work: () => Promise<unknown>): Promise<unknown> => {
  try {
    await work();
  } catch (err) {
    return err;
  }
  throw new Error('expected a failure');
};

function expectUnavailable(err: unknown, backend: string, message: RegExp) {
  const unavailable = backendUnavailable(err);
  expect(unavailable, String(err)).toBeInstanceOf(ServiceError);
  expect(unavailable!.code).toBe('UNAVAILABLE');
  expect(unavailable!.message).toMatch(message);
  expect(unavailable!.detail).toEqual({ retryAfterSeconds: UNAVAILABLE_RETRY_AFTER_SECONDS, backend });
  expect(unavailable!.cause).toBe(err);
}

/** A TCP server on 127.0.0.1 that does `onConnection` with every connection. */
async function tcpServer(onConnection: (socket: Socket) => void): Promise<{ server: Server; port: number }> {
  const sockets = new Set<Socket>();
  const server = createTcpServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    onConnection(socket);
  });
  server.on('close', () => {
    for (const socket of sockets) socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as { port: number }).port };
}

const pool = (port: number, options: pg.PoolConfig = {}) =>
  new pg.Pool({ host: '127.0.0.1', port, user: 'postgres', Client: MarkedClient, ...options });

describe('backendUnavailable: node-postgres', () => {
  it('a refused connection of our pool is PostgreSQL unavailable; the same refusal elsewhere is not', async () => {
    const port = await freePort();
    const ours = pool(port, { connectionTimeoutMillis: 2_000 });
    const refused = await failureOf(() => ours.query('SELECT 1'));
    await ours.end();
    expect((refused as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
    expectUnavailable(refused, 'PostgreSQL', /database did not answer/);
    // A client's own URL (a URL import, a webhook): the same system error, no backend of ours.
    const fetched = await failureOf(() => fetch(`http://127.0.0.1:${port}/`));
    expect(backendUnavailable(fetched)).toBeUndefined();
    expect(backendUnavailable((fetched as Error).cause)).toBeUndefined();
    const unmarked = new pg.Pool({ host: '127.0.0.1', port, connectionTimeoutMillis: 2_000 });
    const plain = await failureOf(() => unmarked.query('SELECT 1'));
    await unmarked.end();
    expect(backendUnavailable(plain)).toBeUndefined();
  });

  it("the pool's connect timeout and a server that hangs up are PostgreSQL unavailable", async () => {
    const silent = await tcpServer(() => undefined);
    const hangUp = await tcpServer((socket) => socket.destroy());
    try {
      const waiting = pool(silent.port, { connectionTimeoutMillis: 200 });
      const timedOut = await failureOf(() => waiting.query('SELECT 1'));
      await waiting.end();
      expect((timedOut as Error).message).toMatch(/timeout/);
      expectUnavailable(timedOut, 'PostgreSQL', /database did not answer/);
      const cut = pool(hangUp.port, { connectionTimeoutMillis: 2_000 });
      const terminated = await failureOf(() => cut.query('SELECT 1'));
      await cut.end();
      expect((terminated as Error).message).toMatch(/Connection terminated|ECONNRESET/);
      expectUnavailable(terminated, 'PostgreSQL', /database did not answer/);
    } finally {
      silent.server.close();
      hangUp.server.close();
    }
  });

  describe('a real PostgreSQL', () => {
    let postgres: PostgresTestServer;
    beforeAll(async () => {
      postgres = await startPostgres();
    }, 120_000);
    afterAll(async () => {
      await postgres?.stop();
    }, 60_000);

    it('a query cut by a shutdown (57P01) and one while it is down are unavailable; a bad one is not', async () => {
      const ours = pool(postgres.port, { connectionTimeoutMillis: 5_000 });
      ours.on('error', () => undefined);
      try {
        const syntax = await failureOf(() => ours.query('SELEC 1'));
        expect((syntax as { code: string }).code).toBe('42601');
        expect(backendUnavailable(syntax)).toBeUndefined();
        const missing = await failureOf(() => ours.query('SELECT * FROM no_such_table'));
        expect(backendUnavailable(missing)).toBeUndefined();

        const running = failureOf(() => ours.query('SELECT pg_sleep(30)'));
        // The query has started once the server lists it.
        const watcher = new pg.Client({ connectionString: postgres.url });
        await watcher.connect();
        for (let i = 0; i < 100; i++) {
          const { rows } = await watcher.query(
            "SELECT count(*)::int AS n FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(30)'",
          );
          if (rows[0].n > 0) break;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        watcher.on('error', () => undefined);
        await postgres.stopServer();
        const shutdown = await running;
        expect((shutdown as { code?: string }).code ?? (shutdown as Error).message).toMatch(
          /57P01|Connection terminated/,
        );
        expectUnavailable(shutdown, 'PostgreSQL', /database did not answer/);
        const whileDown = await failureOf(() => ours.query('SELECT 1'));
        expectUnavailable(whileDown, 'PostgreSQL', /database did not answer/);
        await watcher.end().catch(() => undefined);
      } finally {
        await postgres.startServer();
        await ours.end();
      }
    }, 120_000);
  });
});

describe('backendUnavailable: S3', () => {
  it("our store's refused connection and 5xx after retries are S3 unavailable; a 403 or a target's not", async () => {
    const closed = await freePort();
    const credentials = { accessKeyId: 'k', secretAccessKey: 's' };
    const store = (port: number) =>
      new S3BlobStore({ bucket: 'b', endpoint: `http://127.0.0.1:${port}`, forcePathStyle: true, credentials });
    const refusedStore = store(closed);
    const refused = await failureOf(() => refusedStore.exists('a/key'));
    refusedStore.close();
    expectUnavailable(refused, 'S3', /file store did not answer/);

    let status = 503;
    const http = createHttpServer((_request, response) => response.writeHead(status).end());
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const { port } = http.address() as { port: number };
    try {
      const failing = store(port);
      const serverError = await failureOf(() => failing.exists('a/key'));
      expect((serverError as { $metadata: { httpStatusCode: number } }).$metadata.httpStatusCode).toBe(503);
      expectUnavailable(serverError, 'S3', /file store did not answer/);
      status = 403;
      const denied = await failureOf(() => failing.exists('a/key'));
      expect(backendUnavailable(denied)).toBeUndefined();
      failing.close();
      // A client's export target: the SDK's own client, not our store's, so the same failure is not ours.
      status = 503;
      const target = new S3Client({
        region: 'us-east-1',
        endpoint: `http://127.0.0.1:${port}`,
        forcePathStyle: true,
        credentials,
        maxAttempts: 1,
      });
      const targetError = await failureOf(() => target.send(new HeadObjectCommand({ Bucket: 'b', Key: 'k' })));
      target.destroy();
      expect(backendUnavailable(targetError)).toBeUndefined();
    } finally {
      http.close();
    }
  }, 60_000);
});

describe('backendUnavailable: MongoDB and SQLite', () => {
  it('MongoDB without a reachable server is MongoDB unavailable', async () => {
    const port = await freePort();
    const failure = await failureOf(() =>
      MongoClient.connect(`mongodb://127.0.0.1:${port}/db`, { serverSelectionTimeoutMS: 300 }),
    );
    expect((failure as Error).name).toBe('MongoServerSelectionError');
    expectUnavailable(failure, 'MongoDB', /database did not answer/);
  });

  it('a write while another connection holds the lock (SQLITE_BUSY) is SQLite unavailable', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'transmute-busy-'));
    const file = path.join(dir, 'busy.db');
    const holder = new Database(file, { timeout: 0 });
    const other = new Database(file, { timeout: 0 });
    try {
      holder.exec('CREATE TABLE t (x INTEGER)');
      holder.exec('BEGIN IMMEDIATE');
      holder.exec('INSERT INTO t VALUES (1)');
      const busy = await failureOf(async () => other.exec('INSERT INTO t VALUES (2)'));
      expect((busy as { code: string }).code).toBe('SQLITE_BUSY');
      expectUnavailable(busy, 'SQLite', /database is busy/);
      const constraint = await failureOf(async () => other.exec('INSERT INTO missing VALUES (1)'));
      expect(backendUnavailable(constraint)).toBeUndefined();
    } finally {
      holder.close();
      other.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('expectedError', () => {
  it('keeps service errors, maps unavailable backends with a warning, and leaves the unexpected', async () => {
    const warnings: Array<{ fields: object; message: string }> = [];
    const log = { warn: (fields: object, message: string) => warnings.push({ fields, message }) };
    const refusal = badRequest('no');
    expect(expectedError(refusal, log)).toBe(refusal);
    expect(expectedError(new Error('a bug'), log)).toBeUndefined();
    expect(warnings).toEqual([]);

    const dir = await mkdtemp(path.join(os.tmpdir(), 'transmute-busy-'));
    const holder = new Database(path.join(dir, 'busy.db'), { timeout: 0 });
    const other = new Database(path.join(dir, 'busy.db'), { timeout: 0 });
    try {
      holder.exec('CREATE TABLE t (x INTEGER); BEGIN IMMEDIATE; INSERT INTO t VALUES (1)');
      const busy = await failureOf(async () => other.exec('INSERT INTO t VALUES (2)'));
      expect(expectedError(busy, log)?.code).toBe('UNAVAILABLE');
      expect(warnings).toEqual([
        { fields: { backend: 'SQLite', err: busy }, message: expect.stringMatching(/^SQLite/) },
      ]);
    } finally {
      holder.close();
      other.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('storageFull', () => {
  it("maps a full disk (Node's ENOSPC and EDQUOT, SQLite's SQLITE_FULL, as a cause too) to 507, with a warning", () => {
    const warnings: object[] = [];
    const log = { warn: (fields: object) => warnings.push(fields) };
    const enospc = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    const full = expectedError(enospc, log);
    expect(full).toBeInstanceOf(ServiceError);
    expect(full).toMatchObject({
      code: 'INSUFFICIENT_STORAGE',
      message: expect.stringMatching(/disk is full/),
      detail: { code: 'insufficient_storage' },
    });
    expect(full?.message).not.toMatch(/ENOSPC|\//);
    expect(warnings).toEqual([{ err: enospc }]);
    const sqlite = Object.assign(new Error('database or disk is full'), { name: 'SqliteError', code: 'SQLITE_FULL' });
    expect(storageFull(new Error('saving the output failed', { cause: sqlite }))?.code).toBe('INSUFFICIENT_STORAGE');
    expect(storageFull(Object.assign(new Error('quota'), { code: 'EDQUOT' }))?.code).toBe('INSUFFICIENT_STORAGE');
    expect(storageFull(Object.assign(new Error('gone'), { code: 'ENOENT' }))).toBeUndefined();
  });
});
