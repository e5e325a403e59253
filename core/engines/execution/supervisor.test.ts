import { afterEach, describe, expect, it } from 'vitest';
import { Supervisor, SupervisorClosed, SupervisorUnavailable, type SupervisedInstance } from './supervisor.js';

const silent = { debug() {}, info() {}, warn() {}, error() {} };

/** An instance whose life the test controls: it dies, hangs its pings or grows on request. */
class Fake implements SupervisedInstance {
  static started: Fake[] = [];
  readonly pid = undefined;
  killed = false;
  rss = 0;
  hang = false;
  private die!: () => void;
  readonly exited = new Promise<void>((resolve) => (this.die = resolve));
  constructor(readonly slot: number) {
    Fake.started.push(this);
  }
  crash(): void {
    this.die();
  }
  async kill(): Promise<void> {
    this.killed = true;
    this.die();
  }
  ping(): Promise<void> {
    return this.hang ? new Promise(() => undefined) : Promise.resolve();
  }
}

const tick = (ms = 20) => new Promise((r) => setTimeout(r, ms));
let supervisor: Supervisor<Fake> | undefined;

function make(options: Partial<ConstructorParameters<typeof Supervisor<Fake>>[0]> = {}) {
  Fake.started = [];
  supervisor = new Supervisor<Fake>({
    name: 'fake',
    size: 1,
    start: async (slot) => new Fake(slot),
    log: silent,
    rssBytes: async (i) => i.rss,
    ...options,
  });
  return supervisor;
}

afterEach(async () => {
  await supervisor?.close();
  supervisor = undefined;
});

describe('Supervisor', () => {
  it('starts on demand and lends the same warm instance again', async () => {
    const pool = make();
    expect(Fake.started).toHaveLength(0);
    const first = await pool.acquire();
    await first.release();
    const second = await pool.acquire();
    expect(second.instance).toBe(first.instance);
    await second.release();
    expect(Fake.started).toHaveLength(1);
    expect(pool.status()).toMatchObject({ leases: 2, restarts: 0, recycled: 0 });
  });

  it('starts every slot at once when warm', async () => {
    make({ warm: true, size: 2 });
    await tick();
    expect(Fake.started.map((f) => f.slot)).toEqual([0, 1]);
    expect(supervisor!.status().instances.map((i) => i.state)).toEqual(['idle', 'idle']);
  });

  it('recycles after maxUses and past maxRssMb, killing the old instance', async () => {
    const pool = make({ maxUses: 2, maxRssMb: 100 });
    for (let i = 0; i < 2; i++) await (await pool.acquire()).release();
    await tick();
    expect(Fake.started).toHaveLength(1);
    expect(Fake.started[0]!.killed).toBe(true);
    const lease = await pool.acquire();
    expect(lease.instance).toBe(Fake.started[1]);
    lease.instance.rss = 150_000_000;
    await lease.release();
    await tick();
    expect(Fake.started[1]!.killed).toBe(true);
    expect(pool.status().recycled).toBe(2);
  });

  it('with measureEvery, reads the memory after every nth lease only, and recycles then', async () => {
    let reads = 0;
    const pool = make({
      maxRssMb: 100,
      measureEvery: { uses: 3, ms: 60_000 },
      rssBytes: async (i) => {
        reads++;
        return i.rss;
      },
    });
    const lease = await pool.acquire();
    lease.instance.rss = 150_000_000;
    await lease.release();
    await (await pool.acquire()).release();
    expect(reads).toBe(0);
    expect(pool.status().recycled).toBe(0);
    await (await pool.acquire()).release();
    await tick();
    expect(reads).toBe(1);
    expect(Fake.started[0]!.killed).toBe(true);
    expect(pool.status().recycled).toBe(1);
  });

  it('replaces an instance released broken, and one that died under a lease or while idle', async () => {
    const pool = make();
    const a = await pool.acquire();
    await a.release({ broken: 'timed out' });
    await tick();
    expect(a.instance.killed).toBe(true);
    const b = await pool.acquire();
    expect(b.instance).not.toBe(a.instance);
    b.instance.crash();
    await tick();
    await b.release();
    const c = await pool.acquire();
    expect(c.instance).not.toBe(b.instance);
    await c.release();
    c.instance.crash();
    await tick();
    expect(pool.status()).toMatchObject({ restarts: 3 });
    const d = await pool.acquire();
    expect(d.instance).not.toBe(c.instance);
    await d.release();
  });

  it('serves waiters in order once an instance is given back, and lets a waiter give up', async () => {
    const pool = make();
    const held = await pool.acquire();
    const order: string[] = [];
    const gaveUp = new AbortController();
    const quitter = pool.acquire(gaveUp.signal).catch((err: Error) => order.push(`quit: ${err.message}`));
    const next = pool.acquire().then((lease) => {
      order.push('next');
      return lease;
    });
    gaveUp.abort(new Error('client left'));
    await quitter;
    await held.release();
    const lease = await next;
    expect(order).toEqual(['quit: client left', 'next']);
    expect(lease.instance).toBe(held.instance);
    await lease.release();
  });

  it('replaces an idle instance that does not answer its ping', async () => {
    const pool = make({ healthCheckMs: 20, pingTimeoutMs: 20 });
    const lease = await pool.acquire();
    lease.instance.hang = true;
    await lease.release();
    await tick(150);
    expect(Fake.started[0]!.killed).toBe(true);
    expect(pool.status().restarts).toBeGreaterThanOrEqual(1);
  });

  it('rejects the caller whose start failed, and starts again on the next call', async () => {
    let attempts = 0;
    const pool = make({
      start: async (slot) => (++attempts === 1 ? Promise.reject(new Error('no binary')) : new Fake(slot)),
    });
    await expect(pool.acquire()).rejects.toThrow('no binary');
    const lease = await pool.acquire();
    await lease.release();
    expect(pool.status()).toMatchObject({ startFailures: 1 });
  });

  it('kills every instance on close and refuses new leases', async () => {
    const pool = make({ size: 2, warm: true });
    await tick();
    await pool.close();
    expect(Fake.started.every((f) => f.killed)).toBe(true);
    await expect(pool.acquire()).rejects.toBeInstanceOf(SupervisorClosed);
  });

  it('lends the idle instance a caller prefers (the sandbox: where its plugin module is loaded)', async () => {
    const pool = make({ size: 2, warm: true });
    await tick();
    const [, second] = Fake.started;
    const lease = await pool.acquire(undefined, (instance) => instance === second);
    expect(lease.instance).toBe(second);
    await lease.release();
  });

  it('recycles past a ceiling of its own per instance', async () => {
    const pool = make({ maxRssMb: (instance) => (instance.slot === 0 ? 10 : 1_000) });
    const lease = await pool.acquire();
    lease.instance.rss = 50_000_000;
    await lease.release();
    expect(pool.status().recycled).toBe(1);
  });

  it('settles close() while a start is under way, killing what it started', async () => {
    const pool = make({
      start: (_slot, signal) =>
        new Promise<Fake>((_, reject) => signal.addEventListener('abort', () => reject(new Error('stopped at close')))),
    });
    const caller = pool.acquire().catch((err: Error) => err.message);
    await tick();
    await pool.close();
    expect(await caller).toBe('stopped at close');
  });

  it(
    'retries failed starts after a backoff, and a breaker (suspend, probe, resume) holds every slot ' + 'down',
    async () => {
      let failing = true;
      const failures: number[] = [];
      const pool = make({
        size: 2,
        retryStarts: true,
        start: async (slot) => (failing ? Promise.reject(new Error('no binary')) : new Fake(slot)),
        onStartFailure: (_err, inARow) => failures.push(inARow),
      });
      await pool.warm();
      expect(failures).toEqual([1, 2]);
      expect(pool.status().instances.map((i) => i.state)).toEqual(['down', 'down']);
      // Down slots are not started on demand: a caller hears at once that none can serve it.
      await expect(pool.acquire()).rejects.toBeInstanceOf(SupervisorUnavailable);
      pool.suspend('breaker open');
      await expect(pool.acquire()).rejects.toThrow('is suspended');
      failing = false;
      pool.probe();
      await tick();
      expect(pool.status().instances.map((i) => i.state)).toEqual(['idle', 'down']);
      pool.resume();
      await tick();
      expect(pool.status().instances.map((i) => i.state)).toEqual(['idle', 'idle']);
      const lease = await pool.acquire();
      await lease.release();
    },
  );
});
