import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  configureConfinement,
  configureScopedConfinement,
  jailEnvironment,
  probeConfinement,
  withEngineScope,
} from './confine.js';
import { EngineError, runProcess } from './process.js';

const available = (await probeConfinement()).ok;

/** Processes whose command line holds `marker` (host pids: jails are seen from outside). */
async function processesWith(marker: string): Promise<number[]> {
  const found: number[] = [];
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const cmdline = await readFile(`/proc/${name}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes(marker) && !cmdline.includes('vitest')) found.push(Number(name));
  }
  return found;
}

describe.skipIf(!available)('confined engines (bwrap)', () => {
  let root: string;
  let server: Server;
  let port: number;
  let connections = 0;

  beforeAll(async () => {
    configureConfinement(true);
    root = await mkdtemp(path.join(os.tmpdir(), 'confine-test-'));
    server = createServer((socket) => {
      connections++;
      socket.on('error', () => undefined); // the client leaves at once
      socket.end('beacon');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(async () => {
    configureConfinement(false);
    server.close();
    await rm(root, { recursive: true, force: true });
  });

  it("reads Ghostscript's CJK encodings (CMaps, under /var/lib/ghostscript)", async () => {
    const work = await mkdtemp(path.join(root, 'work-'));
    const query = '/UniGB-UCS2-H /CMap resourcestatus { pop pop (found) } { (missing) } ifelse = quit';
    const { stdout } = await withEngineScope({ writable: [work] }, () =>
      runProcess('gs', ['-q', '-dNODISPLAY', '-dSAFER', '-c', query], { timeoutMs: 30_000 }),
    );
    expect(stdout.trim()).toBe('found');
  });

  it('cannot connect to the host, not even its loopback', async () => {
    const work = await mkdtemp(path.join(root, 'work-'));
    // Unconfined, the same command reaches the server: the test would see it.
    const attempt = `exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected`;
    await expect(
      withEngineScope({ writable: [work] }, () => runProcess('bash', ['-c', attempt], { timeoutMs: 10_000 })),
    ).rejects.toThrow(EngineError);
    expect(connections).toBe(0);
    configureConfinement(false);
    try {
      await runProcess('bash', ['-c', attempt], { timeoutMs: 10_000 });
    } finally {
      configureConfinement(true);
    }
    expect(connections).toBe(1);
  });

  it('jailing scoped calls only (the API, a worker): a call in an engine scope is, the service`s own not', async () => {
    const work = await mkdtemp(path.join(root, 'work-'));
    const attempt = `exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected`;
    const before = connections;
    configureConfinement(false);
    configureScopedConfinement(true);
    try {
      await expect(
        withEngineScope({ writable: [work] }, () => runProcess('bash', ['-c', attempt], { timeoutMs: 10_000 })),
      ).rejects.toThrow(EngineError);
      expect(connections).toBe(before);
      await runProcess('bash', ['-c', attempt], { timeoutMs: 10_000 });
      expect(connections).toBe(before + 1);
    } finally {
      configureScopedConfinement(false);
      configureConfinement(true);
    }
  });

  it('sees its work folder and input files, not other folders, DATA_DIR-like paths or /etc secrets', async () => {
    const work = await mkdtemp(path.join(root, 'work-'));
    const other = await mkdtemp(path.join(root, 'other-job-'));
    const inputs = await mkdtemp(path.join(root, 'blobs-'));
    await writeFile(path.join(other, 'secret.txt'), 'other tenant');
    await writeFile(path.join(inputs, 'input.txt'), 'the input');
    await writeFile(path.join(inputs, 'neighbour.txt'), 'not this one');
    const scope = { writable: [work], readable: [path.join(inputs, 'input.txt')] };
    const run = (script: string) =>
      withEngineScope(scope, () => runProcess('sh', ['-c', script], { timeoutMs: 10_000 }));

    expect((await run(`cat ${path.join(inputs, 'input.txt')}`)).stdout).toBe('the input');
    await run(`echo written > ${path.join(work, 'out.txt')}`);
    expect(await readFile(path.join(work, 'out.txt'), 'utf8')).toBe('written\n');
    await expect(run(`echo x > ${path.join(inputs, 'input.txt')}`)).rejects.toThrow(/Read-only|Permission/);
    await expect(run(`cat ${path.join(other, 'secret.txt')}`)).rejects.toThrow(/No such file/);
    await expect(run(`cat ${path.join(inputs, 'neighbour.txt')}`)).rejects.toThrow(/No such file/);
    for (const secret of ['/etc/shadow', '/etc/passwd', '/root', '/home'])
      await expect(run(`ls ${secret}`)).rejects.toThrow(/No such file/);
    // The system is there, read-only.
    expect((await run('ls /usr/bin/sh && touch /usr/x 2>/dev/null || echo read-only')).stdout).toContain('read-only');
  });

  it('keeps only locale, PATH and what the caller set of the environment', () => {
    process.env.TRANSMUTE_TEST_SECRET = 'mongodb://user:pass@db';
    try {
      const env = jailEnvironment({ ...process.env, OMP_THREAD_LIMIT: '1', HOME: '/work/profile' });
      expect(env.TRANSMUTE_TEST_SECRET).toBeUndefined();
      expect(env).toMatchObject({
        OMP_THREAD_LIMIT: '1',
        HOME: '/work/profile',
        TMPDIR: '/tmp',
        PATH: process.env.PATH,
      });
    } finally {
      delete process.env.TRANSMUTE_TEST_SECRET;
    }
  });

  it('reports a missing program as missing', async () => {
    await expect(runProcess('no-such-engine-here', [], { timeoutMs: 10_000 })).rejects.toMatchObject({
      reason: 'missing',
    });
  });

  it('takes the whole jail down at a timeout: no orphan survives', async () => {
    const marker = `31${Math.floor(Math.random() * 1e6)}`;
    // Children in the background and a new session would escape a plain process-group kill.
    const script = `sleep ${marker} & setsid sleep ${marker} & sleep ${marker}`;
    await expect(runProcess('sh', ['-c', script], { timeoutMs: 1_000 })).rejects.toMatchObject({ reason: 'timeout' });
    // Killed with the jail, gone a moment later (longer on a loaded machine).
    for (const giveUpAt = Date.now() + 30_000; (await processesWith(marker)).length && Date.now() < giveUpAt; )
      await new Promise((r) => setTimeout(r, 100));
    expect(await processesWith(marker)).toEqual([]);
  });
});
