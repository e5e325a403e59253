/**
 * A real PostgreSQL for tests: Debian's server binaries (package `postgresql`, installed by
 * `scripts/setup.sh --test`), a cluster made by initdb in a temporary folder, listening on a
 * random port of 127.0.0.1 with its unix socket in that folder. PostgreSQL refuses to run as
 * root, so as root every binary runs as the `postgres` user. stop() removes everything.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, chown, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);

/** Where Debian puts the server binaries (`PG_BIN` overrides). */
function binDir(): string {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  for (const version of ['17', '16', '15', '14']) {
    const dir = `/usr/lib/postgresql/${version}/bin`;
    if (existsSync(path.join(dir, 'initdb'))) return dir;
  }
  throw new Error(
    'PostgreSQL server binaries not found: run `scripts/setup.sh --test` (Debian package postgresql) or set PG_BIN',
  );
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface PostgresTestServer {
  /** URL of the `postgres` database (superuser, no password: trust on 127.0.0.1 only). */
  readonly url: string;
  readonly port: number;
  /** Creates an empty database and returns its URL. */
  createDatabase(): Promise<string>;
  dropDatabase(url: string): Promise<void>;
  /**
   * An empty schema of the `postgres` database and a URL that works in it (search_path): much
   * cheaper than a database, for suites that want fresh storage per test.
   */
  createSchema(): Promise<string>;
  dropSchema(url: string): Promise<void>;
  /** Stops the server (fast shutdown: connections are cut) and starts it again on the same port and data. */
  restart(options?: { downMs?: number }): Promise<void>;
  stopServer(): Promise<void>;
  startServer(): Promise<void>;
  /** Stops the server and deletes its folder. */
  stop(): Promise<void>;
}

export async function startPostgres(): Promise<PostgresTestServer> {
  const bin = binDir();
  const asRoot = process.getuid?.() === 0;
  // As root, /tmp rather than TMPDIR: the postgres user must be able to reach the folder.
  const root = await mkdtemp(path.join(asRoot ? '/tmp' : os.tmpdir(), 'transmute-pg-'));
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    await chown(root, Number(stdout.trim()), Number(gid.trim()));
  }
  await chmod(root, 0o700);
  const exec = (program: string, args: string[], timeout = 60_000) =>
    run(
      asRoot ? 'runuser' : path.join(bin, program),
      asRoot ? ['-u', 'postgres', '--', path.join(bin, program), ...args] : args,
      { timeout },
    );
  const data = path.join(root, 'data');
  const port = await freePort();
  await exec('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync']);
  const startServer = async () => {
    const options =
      `-p ${port} -k ${root} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c ` +
      `full_page_writes=off -c max_connections=300`;
    await exec('pg_ctl', ['start', '-D', data, '-w', '-t', '60', '-l', path.join(root, 'server.log'), '-o', options]);
  };
  const stopServer = async () => {
    await exec('pg_ctl', ['stop', '-D', data, '-m', 'fast', '-w', '-t', '60']).catch(() => undefined);
  };
  await startServer();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const admin = async <T>(work: (client: pg.Client) => Promise<T>): Promise<T> => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  };
  return {
    url,
    port,
    async createDatabase() {
      const name = `t_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
      await admin((client) => client.query(`CREATE DATABASE ${name}`));
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    },
    async dropDatabase(databaseUrl) {
      const name = new URL(databaseUrl).pathname.slice(1);
      if (!/^t_[0-9a-f]+$/.test(name)) throw new Error(`not a test database: ${name}`);
      await admin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
    async createSchema() {
      const name = `t_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
      await admin((client) => client.query(`CREATE SCHEMA ${name}`));
      return `${url}?options=${encodeURIComponent(`-c search_path=${name}`)}`;
    },
    async dropSchema(schemaUrl) {
      const name = /search_path=(t_[0-9a-f]+)/.exec(decodeURIComponent(schemaUrl))?.[1];
      if (!name) throw new Error(`not a test schema: ${schemaUrl}`);
      await admin((client) => client.query(`DROP SCHEMA ${name} CASCADE`));
    },
    async restart({ downMs = 0 } = {}) {
      await stopServer();
      if (downMs) await new Promise((resolve) => setTimeout(resolve, downMs));
      await startServer();
    },
    stopServer,
    startServer,
    async stop() {
      await stopServer();
      await rm(root, { recursive: true, force: true });
    },
  };
}
