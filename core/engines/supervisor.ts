/**
 * One supervisor for long-lived engine processes (modelled on Gotenberg's ProcessSupervisor):
 * a fixed number of slots, each holding at most one instance. Instances start warm (or on first
 * demand), are leased to one user at a time, are pinged while idle, are recycled after `maxUses`
 * or past `maxRssMb`, and one that died, hung or was interrupted is killed with its children and
 * replaced. What an instance is (a browser, a listener) stays with its engine module: the
 * supervisor only needs a pid, a liveness signal, a kill and optionally a ping.
 *
 * Chromium (chromium.ts) is its first user; the sandbox and LibreOffice pools are to move onto it.
 */
import type { Logger } from '../contract/index.js';
import { treeRssBytes } from './process-tree.js';

const MB = 1_000_000;

export interface SupervisedInstance {
  /** The root of the instance's process tree (its memory is measured there). */
  readonly pid: number | undefined;
  /** Settles when the instance has died (crash, kill): an idle one is then replaced. */
  readonly exited: Promise<void>;
  /** Kill the instance with every process it started, and wait until they are gone. */
  kill(): Promise<void>;
  /** Resolves while the instance answers; rejects (or hangs) when it does not. */
  ping?(): Promise<void>;
}

export interface SupervisorOptions<T extends SupervisedInstance> {
  /** For logs: "chromium". */
  name: string;
  /** Instances at most. */
  size: number;
  /** Start one instance; must kill what it started when `signal` aborts or it fails. */
  start(slot: number, signal: AbortSignal): Promise<T>;
  log: Logger;
  /** An instance is replaced after this many leases... */
  maxUses?: number;
  /** ...or when its process tree holds more than this after a lease. */
  maxRssMb?: number;
  /** Start every slot at once (else on demand), and start the replacement of a recycled one at once. */
  warm?: boolean;
  /** How often idle instances are pinged and measured (0: never). */
  healthCheckMs?: number;
  /** How long a ping may take before the instance counts as hung. */
  pingTimeoutMs?: number;
  /** Memory of an instance (default: the resident memory of its process tree). */
  rssBytes?(instance: T): Promise<number>;
}

type SlotState = 'stopped' | 'starting' | 'idle' | 'busy';

interface Slot<T> {
  index: number;
  state: SlotState;
  instance?: T;
  uses: number;
}

/** One instance lent out; give it back with release(), exactly once. */
export interface Lease<T> {
  readonly instance: T;
  /** broken: the instance must not be reused (it hung, was interrupted or misbehaved): it is killed and replaced. */
  release(options?: { broken?: string }): Promise<void>;
}

export interface SupervisorStatus {
  size: number;
  instances: Array<{ state: SlotState; pid?: number; uses: number }>;
  /** Since start: leases given back, instances replaced after a death or a failure, recycled after maxUses / maxRssMb, failed starts. */
  leases: number;
  restarts: number;
  recycled: number;
  startFailures: number;
}

export class SupervisorClosed extends Error {
  constructor(name: string) {
    super(`the ${name} pool is closed`);
  }
}

interface Waiter<T> {
  resolve(slot: Slot<T>): void;
  reject(err: Error): void;
}

export class Supervisor<T extends SupervisedInstance> {
  private readonly slots: Array<Slot<T>>;
  private readonly waiters: Array<Waiter<T>> = [];
  private readonly closing = new AbortController();
  private readonly inFlight = new Set<Promise<unknown>>();
  private healthTimer: NodeJS.Timeout | undefined;
  private readonly dead = new WeakSet<T>();
  private readonly counters = { leases: 0, restarts: 0, recycled: 0, startFailures: 0 };

  constructor(private readonly options: SupervisorOptions<T>) {
    if (options.size < 1) throw new Error('a supervisor needs at least one slot');
    this.slots = Array.from({ length: options.size }, (_, index) => ({
      index,
      state: 'stopped' as SlotState,
      uses: 0,
    }));
    if (options.warm) for (const slot of this.slots) void this.startInBackground(slot);
  }

  /**
   * An instance for one user: an idle one, else a fresh one (started for this caller), else the
   * next one given back. Rejects when `signal` aborts first, when the start this caller waited
   * for fails, or when the supervisor closes.
   */
  async acquire(signal?: AbortSignal): Promise<Lease<T>> {
    const slot = await this.slotFor(signal);
    return this.lease(slot);
  }

  /** acquire(), run `work`, release; the instance is replaced when `work` fails and the instance is dead or the caller aborted. */
  async use<R>(work: (instance: T) => Promise<R>, signal?: AbortSignal): Promise<R> {
    const lease = await this.acquire(signal);
    let broken: string | undefined;
    try {
      return await work(lease.instance);
    } catch (err) {
      if (signal?.aborted) broken = 'interrupted under a lease';
      throw err;
    } finally {
      await lease.release(broken ? { broken } : {});
    }
  }

  status(): SupervisorStatus {
    return {
      size: this.slots.length,
      instances: this.slots.map((slot) => ({
        state: slot.state,
        ...(slot.instance?.pid ? { pid: slot.instance.pid } : {}),
        uses: slot.uses,
      })),
      ...this.counters,
    };
  }

  /** Kill every instance (and what starts under way), and refuse new leases. */
  async close(): Promise<void> {
    this.closing.abort();
    clearInterval(this.healthTimer);
    for (const waiter of this.waiters.splice(0)) waiter.reject(new SupervisorClosed(this.options.name));
    const instances = this.slots.map((slot) => slot.instance).filter((i): i is T => i !== undefined);
    for (const slot of this.slots) {
      slot.instance = undefined;
      slot.state = 'stopped';
    }
    await Promise.all([...instances.map((i) => i.kill()), ...this.inFlight]);
  }

  private get closed(): boolean {
    return this.closing.signal.aborted;
  }

  private slotFor(signal?: AbortSignal): Promise<Slot<T>> {
    if (this.closed) return Promise.reject(new SupervisorClosed(this.options.name));
    signal?.throwIfAborted();
    const idle = this.slots.find((slot) => slot.state === 'idle');
    if (idle) {
      idle.state = 'busy';
      return Promise.resolve(idle);
    }
    const stopped = this.slots.find((slot) => slot.state === 'stopped');
    if (stopped) return this.startFor(stopped, signal);
    return new Promise<Slot<T>>((resolve, reject) => {
      const settle = () => {
        signal?.removeEventListener('abort', onAbort);
        const at = this.waiters.indexOf(waiter);
        if (at >= 0) this.waiters.splice(at, 1);
      };
      const waiter: Waiter<T> = {
        resolve: (slot) => {
          settle();
          resolve(slot);
        },
        reject: (err) => {
          settle();
          reject(err);
        },
      };
      const onAbort = () => waiter.reject(signal!.reason instanceof Error ? signal!.reason : new Error('aborted'));
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  private lease(slot: Slot<T>): Lease<T> {
    const instance = slot.instance!;
    let released = false;
    return {
      instance,
      release: async ({ broken } = {}) => {
        if (released) return;
        released = true;
        this.counters.leases++;
        slot.uses++;
        if (slot.instance !== instance || this.closed) return;
        if (broken) return this.replace(slot, broken, false);
        if (this.dead.has(instance)) return this.replace(slot, 'died under a lease', false);
        await this.afterUse(slot, instance);
      },
    };
  }

  /** Back to work, or recycled when it has done enough or grown too large. */
  private async afterUse(slot: Slot<T>, instance: T): Promise<void> {
    const maxUses = this.options.maxUses ?? 100;
    if (slot.uses >= maxUses) return this.replace(slot, `recycled after ${slot.uses} uses`, true);
    if (this.options.maxRssMb) {
      const rss = await this.rss(instance);
      if (slot.instance !== instance || this.closed) return;
      if (rss > this.options.maxRssMb * MB) return this.replace(slot, `recycled at ${Math.round(rss / MB)} MB`, true);
    }
    this.handOut(slot);
  }

  private rss(instance: T): Promise<number> {
    if (this.options.rssBytes) return this.options.rssBytes(instance);
    return instance.pid ? treeRssBytes(instance.pid) : Promise.resolve(0);
  }

  /** A slot has an instance free: to the first waiter, or idle. */
  private handOut(slot: Slot<T>): void {
    const waiter = this.waiters.shift();
    slot.state = waiter ? 'busy' : 'idle';
    waiter?.resolve(slot);
  }

  /** Kill the slot's instance; its replacement starts now (warm, or someone is waiting) or on demand. */
  private replace(slot: Slot<T>, reason: string, recycle: boolean): void {
    const old = slot.instance;
    slot.instance = undefined;
    slot.state = 'stopped';
    slot.uses = 0;
    this.counters[recycle ? 'recycled' : 'restarts']++;
    this.options.log[recycle ? 'info' : 'warn'](`${this.options.name} pool: replacing an instance`, {
      slot: slot.index,
      reason,
    });
    void this.track(
      (async () => {
        await old?.kill();
        if (!this.closed && slot.state === 'stopped' && (this.options.warm || this.waiters.length))
          await this.startInBackground(slot);
      })(),
    );
  }

  private track<R>(work: Promise<R>): Promise<R> {
    this.inFlight.add(work);
    void work.finally(() => this.inFlight.delete(work)).catch(() => undefined);
    return work;
  }

  /** Start an instance for a caller: the slot is theirs once it runs. */
  private async startFor(slot: Slot<T>, signal?: AbortSignal): Promise<Slot<T>> {
    await this.startOn(slot, signal);
    slot.state = 'busy';
    return slot;
  }

  /** Start an instance nobody asked for yet (warm start, replacement): it goes to a waiter or idles. */
  private async startInBackground(slot: Slot<T>): Promise<void> {
    try {
      await this.startOn(slot);
      this.handOut(slot);
    } catch {
      // Logged by startOn. Waiters keep waiting for another slot; when none can serve them, they fail.
      if (this.waiters.length && !this.slots.some((s) => s.state !== 'stopped')) {
        for (const waiter of this.waiters.splice(0))
          waiter.reject(new Error(`the ${this.options.name} process could not start`));
      }
    }
  }

  private async startOn(slot: Slot<T>, signal?: AbortSignal): Promise<void> {
    slot.state = 'starting';
    const stop = signal ? AbortSignal.any([this.closing.signal, signal]) : this.closing.signal;
    let instance: T;
    try {
      instance = await this.track(this.options.start(slot.index, stop));
    } catch (err) {
      slot.state = 'stopped';
      if (!this.closed) {
        this.counters.startFailures++;
        this.options.log.warn(`${this.options.name} pool: an instance did not start`, {
          slot: slot.index,
          error: (err as Error).message,
        });
      }
      throw err;
    }
    if (this.closed) {
      await instance.kill();
      throw new SupervisorClosed(this.options.name);
    }
    slot.instance = instance;
    slot.uses = 0;
    void instance.exited.then(() => {
      this.dead.add(instance);
      // Busy: its user sees the failure and releases it broken (or the next check finds it gone).
      if (slot.instance === instance && slot.state === 'idle' && !this.closed)
        this.replace(slot, 'died while idle', false);
    });
    if (this.options.healthCheckMs)
      this.healthTimer ??= setInterval(() => void this.checkIdle(), this.options.healthCheckMs).unref();
  }

  /** Ping and measure idle instances: one that does not answer is replaced, one that has grown is recycled. */
  private async checkIdle(): Promise<void> {
    for (const slot of this.slots) {
      const instance = slot.instance;
      if (slot.state !== 'idle' || !instance || this.closed) continue;
      slot.state = 'busy';
      const timeoutMs = this.options.pingTimeoutMs ?? 5_000;
      let timer: NodeJS.Timeout | undefined;
      try {
        if (instance.ping) {
          await Promise.race([
            instance.ping(),
            new Promise(
              (_, reject) =>
                (timer = setTimeout(() => reject(new Error(`no answer to a ping within ${timeoutMs} ms`)), timeoutMs)),
            ),
          ]);
        }
        if (slot.instance !== instance || this.closed) continue;
        if (this.options.maxRssMb && (await this.rss(instance)) > this.options.maxRssMb * MB) {
          if (slot.instance === instance) this.replace(slot, 'grew past its memory ceiling while idle', true);
          continue;
        }
        if (slot.instance === instance) this.handOut(slot);
      } catch (err) {
        if (slot.instance === instance && !this.closed)
          this.replace(slot, `health check: ${(err as Error).message}`, false);
      } finally {
        clearTimeout(timer);
      }
    }
  }
}
