/**
 * One supervisor for long-lived engine processes (modelled on Gotenberg's ProcessSupervisor):
 * a fixed number of slots, each holding at most one instance. Instances start warm (or on first
 * demand), are leased to one user at a time, are pinged while idle, are recycled after `maxUses`
 * or past `maxRssMb`, and one that died, hung or was interrupted is killed with its children and
 * replaced. What an instance is (a browser, a listener) stays with its engine module: the
 * supervisor only needs a pid, a liveness signal, a kill and optionally a ping.
 *
 * Its users: the sandbox pool (sandbox/pool.ts), the LibreOffice pool (libreoffice-pool.ts) and
 * Chromium (chromium.ts). Memory is counted by proportional set size (treePssOver): an RSS sum
 * counts the pages a process tree shares (Chromium's, a forked sandbox's) once per process.
 *
 * Starts that fail can be retried with a backoff (`retryStarts`), and a user can open a circuit
 * breaker over it (suspend / probe / resume) when starts keep failing: the LibreOffice pool then
 * sends conversions to a cold soffice.
 */
import type { Logger } from '../../contract/index.js';
import { treePssOver } from './process-tree.js';

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
  /** ...or when its process tree holds more than this after a lease (a number, or one per instance). */
  maxRssMb?: number | ((instance: T) => number);
  /** Start every slot at once (else on demand). */
  warm?: boolean;
  /** Start the replacement of an instance at once (default: when warm), else on demand. */
  replaceAtOnce?: boolean;
  /** A slot whose start failed goes down and is started again after a backoff (1 s doubling to 30 s). */
  retryStarts?: boolean;
  /** Every failed start, with the number of failures in a row over all slots (a user's circuit breaker). */
  onStartFailure?(err: Error, failuresInARow: number): void;
  /** Every successful start (a user's breaker closes). */
  onStarted?(): void;
  /** How often idle instances are pinged and measured (0: never). */
  healthCheckMs?: number;
  /** How long a ping may take before the instance counts as hung. */
  pingTimeoutMs?: number;
  /** Memory of an instance (default: the proportional set size of its process tree). */
  rssBytes?(instance: T): Promise<number>;
  /**
   * After a lease, read the memory only once `uses` leases or `ms` have passed since the last read
   * (default: after every lease; idle checks always read). A large tree's read (a browser's) costs
   * tens of ms of CPU and fills the thread pool with /proc reads while the result is on its way.
   */
  measureEvery?: { uses: number; ms: number };
}

/**
 * stopped: started on demand; down: its start failed (or the supervisor is suspended): started by a retry or a probe.
 */
export type SlotState = 'stopped' | 'starting' | 'idle' | 'busy' | 'down';

interface Slot<T> {
  index: number;
  state: SlotState;
  instance?: T;
  uses: number;
  /** When the instance's memory was last read after a lease (its use count then). */
  measured: { uses: number; at: number };
  retryTimer?: NodeJS.Timeout;
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
  /** Callers waiting for an instance. */
  waiting: number;
  /**
   * Since start: leases given back, instances replaced after a death or a failure, recycled after maxUses / maxRssMb,
   * failed starts.
   */
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

/** No instance can be had now: every slot is down (failed starts, or suspended). */
export class SupervisorUnavailable extends Error {
  constructor(name: string, why = 'could not start') {
    super(`the ${name} process ${why}`);
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
  private failuresInARow = 0;
  private suspended = false;

  constructor(private readonly options: SupervisorOptions<T>) {
    if (options.size < 1) throw new Error('a supervisor needs at least one slot');
    this.slots = Array.from({ length: options.size }, (_, index) => ({
      index,
      state: 'stopped' as SlotState,
      uses: 0,
      measured: { uses: 0, at: Date.now() },
    }));
    if (options.warm) for (const slot of this.slots) void this.startInBackground(slot);
  }

  /**
   * An instance for one user: an idle one, else a fresh one (started for this caller), else the
   * next one given back. Rejects when `signal` aborts first, when the start this caller waited
   * for fails, or when the supervisor closes.
   */
  async acquire(signal?: AbortSignal, prefer?: (instance: T) => boolean): Promise<Lease<T>> {
    const slot = await this.slotFor(signal, prefer);
    return this.lease(slot);
  }

  /** Start every slot not running yet (or `count` at most), ahead of the first leases; settles when each start has. */
  async warm(count = this.slots.length): Promise<void> {
    const cold = this.slots.filter((slot) => slot.state === 'stopped' || slot.state === 'down');
    const wanted = Math.max(0, Math.min(count, this.slots.length) - (this.slots.length - cold.length));
    await Promise.all(cold.slice(0, wanted).map((slot) => this.startInBackground(slot)));
  }

  /** Each slot's instance, for a user's own status (what an instance counts itself). */
  instances(): Array<T | undefined> {
    return this.slots.map((slot) => slot.instance);
  }

  /**
   * Open a circuit breaker: every instance is killed, every slot goes down and waiters (and new
   * callers) get SupervisorUnavailable, until a start succeeds (probe) and the user calls resume().
   */
  suspend(reason: string): void {
    this.suspended = true;
    for (const waiter of this.waiters.splice(0)) waiter.reject(new SupervisorUnavailable(this.options.name, reason));
    for (const slot of this.slots) {
      clearTimeout(slot.retryTimer);
      const old = slot.instance;
      slot.instance = undefined;
      if (old) void this.track(old.kill());
      if (slot.state !== 'starting') slot.state = 'down';
    }
  }

  /** Half-open: start one slot while suspended (onStarted tells whether it worked). */
  probe(): void {
    const slot = this.slots.find((s) => s.state === 'down' || s.state === 'stopped');
    if (slot && !this.closed) void this.startInBackground(slot);
  }

  /** Close the breaker: the slots that are down start again. */
  resume(): void {
    this.suspended = false;
    for (const slot of this.slots) if (slot.state === 'down') void this.startInBackground(slot);
  }

  /**
   * acquire(), run `work`, release; the instance is replaced when `work` fails and the instance is dead or the caller
   * aborted.
   */
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
      waiting: this.waiters.length,
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
      clearTimeout(slot.retryTimer);
      slot.instance = undefined;
      slot.state = 'stopped';
    }
    // Starts under way see the abort, kill what they started and reject: close() settles all the same.
    await Promise.allSettled([...instances.map((i) => i.kill()), ...this.inFlight]);
  }

  private get closed(): boolean {
    return this.closing.signal.aborted;
  }

  private slotFor(signal?: AbortSignal, prefer?: (instance: T) => boolean): Promise<Slot<T>> {
    if (this.closed) return Promise.reject(new SupervisorClosed(this.options.name));
    signal?.throwIfAborted();
    if (this.suspended) return Promise.reject(new SupervisorUnavailable(this.options.name, 'is suspended'));
    const idle = this.slots.filter((slot) => slot.state === 'idle');
    const chosen = idle.find((slot) => prefer?.(slot.instance!)) ?? idle[0];
    if (chosen) {
      chosen.state = 'busy';
      return Promise.resolve(chosen);
    }
    const stopped = this.slots.find((slot) => slot.state === 'stopped');
    if (stopped) return this.startFor(stopped, signal);
    if (!this.canServe()) return Promise.reject(new SupervisorUnavailable(this.options.name));
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
    const every = this.options.measureEvery;
    if (every && slot.uses - slot.measured.uses < every.uses && Date.now() - slot.measured.at < every.ms)
      return this.handOut(slot);
    slot.measured = { uses: slot.uses, at: Date.now() };
    const rss = await this.overCeiling(instance);
    if (slot.instance !== instance || this.closed) return;
    if (rss) return this.replace(slot, `recycled at ${Math.round(rss / MB)} MB`, true);
    this.handOut(slot);
  }

  /** The instance's memory when past its ceiling, else 0 (or when there is no ceiling). */
  private async overCeiling(instance: T): Promise<number> {
    const { maxRssMb } = this.options;
    if (!maxRssMb) return 0;
    const ceiling = (typeof maxRssMb === 'number' ? maxRssMb : maxRssMb(instance)) * MB;
    if (!this.options.rssBytes) return instance.pid ? ((await treePssOver(instance.pid, ceiling)) ?? 0) : 0;
    const rss = await this.options.rssBytes(instance);
    return rss > ceiling ? rss : 0;
  }

  /** Whether a slot has (or is getting) an instance that a waiter will get. */
  private canServe(): boolean {
    return this.slots.some((slot) => slot.state === 'starting' || slot.state === 'busy' || slot.state === 'idle');
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
    const atOnce = this.options.replaceAtOnce ?? this.options.warm;
    slot.instance = undefined;
    // Started at once: nobody else starts the slot while the old instance dies (it may hold the slot's files).
    slot.state = this.suspended ? 'down' : atOnce ? 'starting' : 'stopped';
    slot.uses = 0;
    this.counters[recycle ? 'recycled' : 'restarts']++;
    this.options.log[recycle ? 'info' : 'warn'](`${this.options.name} pool: replacing an instance`, {
      slot: slot.index,
      reason,
    });
    void this.track(
      (async () => {
        await old?.kill();
        if (this.closed) return;
        // Suspended meanwhile: the slot waits for the breaker's probe with the others.
        if (this.suspended) {
          if (slot.state === 'starting') slot.state = 'down';
          return;
        }
        if (slot.state === 'starting' || (slot.state === 'stopped' && this.waiters.length))
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
      // Logged (and failed waiters) by startOn.
    }
  }

  private async startOn(slot: Slot<T>, signal?: AbortSignal): Promise<void> {
    clearTimeout(slot.retryTimer);
    slot.state = 'starting';
    const stop = signal ? AbortSignal.any([this.closing.signal, signal]) : this.closing.signal;
    let instance: T;
    try {
      instance = await this.track(this.options.start(slot.index, stop));
    } catch (err) {
      if (!this.closed) this.startFailed(slot, err as Error);
      throw err;
    }
    if (this.closed) {
      await instance.kill();
      throw new SupervisorClosed(this.options.name);
    }
    slot.instance = instance;
    slot.uses = 0;
    slot.measured = { uses: 0, at: Date.now() };
    this.failuresInARow = 0;
    this.options.onStarted?.();
    void instance.exited.then(() => {
      this.dead.add(instance);
      // Busy: its user sees the failure and releases it broken (or the next check finds it gone).
      if (slot.instance === instance && slot.state === 'idle' && !this.closed)
        this.replace(slot, 'died while idle', false);
    });
    if (this.options.healthCheckMs)
      this.healthTimer ??= setInterval(() => void this.checkIdle(), this.options.healthCheckMs).unref();
  }

  /** A failed start: the slot is down (retried later) or stopped; waiters that no slot can serve fail. */
  private startFailed(slot: Slot<T>, err: Error): void {
    this.counters.startFailures++;
    this.failuresInARow++;
    this.options.log.warn(`${this.options.name} pool: an instance did not start`, {
      slot: slot.index,
      error: err.message,
      failuresInARow: this.failuresInARow,
    });
    slot.state = this.options.retryStarts || this.suspended ? 'down' : 'stopped';
    this.options.onStartFailure?.(err, this.failuresInARow);
    if (this.options.retryStarts && !this.suspended && slot.state === 'down') {
      const backoffMs = Math.min(30_000, 1_000 * 2 ** (this.failuresInARow - 1));
      slot.retryTimer = setTimeout(() => void this.startInBackground(slot), backoffMs).unref();
    }
    if (!this.canServe())
      for (const waiter of this.waiters.splice(0)) waiter.reject(new SupervisorUnavailable(this.options.name));
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
        if (await this.overCeiling(instance)) {
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
