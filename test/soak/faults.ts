/**
 * The soak's fault injector: until the deadline, every few seconds it picks a fault by the seed and a target no
 * other fault holds, applies it for a while and undoes it. Faults of different targets overlap, as they do in life.
 * heal() undoes everything still applied, so the load can drain.
 */
import { sleep } from '../helpers.js';
import type { Cluster, SoakNode } from './cluster.js';
import type { Random } from '../testing/random.js';

export type FaultKind =
  | 'kill-api'
  | 'kill-worker'
  | 'stall'
  | 'postgres-restart'
  | 's3-stop'
  | 's3-503'
  | 'link-delay'
  | 'link-cut'
  | 'link-reset';

export interface FaultRecord {
  kind: FaultKind;
  target: string;
  at: number;
  ms: number;
  error?: string;
}

export interface InjectorOptions {
  until: number;
  lockMs: number;
  /** Pause between the starts of two faults. */
  gapMs: [number, number];
}

export class FaultInjector {
  readonly faults: FaultRecord[] = [];
  private readonly busy = new Set<string>();
  private readonly running = new Set<Promise<void>>();

  constructor(
    private readonly cluster: Cluster,
    private readonly random: Random,
    private readonly options: InjectorOptions,
    private readonly say: (line: string) => void,
  ) {}

  counts(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const fault of this.faults) counts[fault.kind] = (counts[fault.kind] ?? 0) + 1;
    return counts;
  }

  async run(): Promise<void> {
    // Bounded by the deadline and by a count.
    for (let i = 0; i < 100_000 && Date.now() < this.options.until; i++) {
      await sleep(this.random.int(...this.options.gapMs));
      if (Date.now() >= this.options.until) break;
      const kind = this.random.weighted<FaultKind>({
        'kill-api': 8,
        'kill-worker': 12,
        stall: 12,
        'postgres-restart': 7,
        's3-stop': 6,
        's3-503': 7,
        'link-delay': 12,
        'link-cut': 10,
        'link-reset': 8,
      });
      const plan = this.plan(kind);
      if (!plan) continue;
      const record: FaultRecord = { kind, target: plan.target, at: Date.now(), ms: 0 };
      this.faults.push(record);
      this.busy.add(plan.target);
      const done = plan
        .apply()
        .catch((err: Error) => {
          record.error = err.message;
          this.say(`fault ${kind} on ${plan.target} went wrong: ${err.message}`);
        })
        .finally(() => {
          record.ms = Date.now() - record.at;
          this.busy.delete(plan.target);
        });
      this.running.add(done);
      void done.finally(() => this.running.delete(done));
    }
    await Promise.all(this.running);
  }

  /** A fault of `kind` on a free target, or null when every target it could hit is taken. */
  private plan(kind: FaultKind): { target: string; apply: () => Promise<void> } | null {
    const cluster = this.cluster;
    const free = (nodes: SoakNode[]) => nodes.filter((node) => !this.busy.has(node.name));
    const ms = (min: number, max: number) => this.random.int(min, max);
    switch (kind) {
      case 'kill-api':
      case 'kill-worker': {
        const candidates = free(kind === 'kill-api' ? cluster.apis : cluster.workers);
        if (!candidates.length) return null;
        const node = this.random.pick(candidates);
        const down = ms(0, 3000);
        return {
          target: node.name,
          apply: async () => {
            await cluster.kill9(node);
            await sleep(down);
            await this.restart(node);
          },
        };
      }
      case 'stall': {
        const candidates = free(cluster.nodes);
        if (!candidates.length) return null;
        const node = this.random.pick(candidates);
        // Longer than the lock's lifetime: the job is taken over while its worker sleeps.
        const stalled = ms(this.options.lockMs + 1000, this.options.lockMs * 2 + 3000);
        return {
          target: node.name,
          apply: async () => {
            cluster.pause(node);
            await sleep(stalled);
            cluster.resume(node);
          },
        };
      }
      case 'postgres-restart': {
        if (this.busy.has('postgres')) return null;
        const down = ms(1000, 8000);
        return {
          target: 'postgres',
          apply: async () => {
            await cluster.postgres.stopServer();
            await sleep(down);
            await this.withRetries('start PostgreSQL', () => cluster.postgres.startServer());
          },
        };
      }
      case 's3-stop':
      case 's3-503': {
        if (this.busy.has('s3')) return null;
        const down = ms(1000, 8000);
        return {
          target: 's3',
          apply: async () => {
            if (kind === 's3-stop') {
              await cluster.s3.stopServer();
              await sleep(down);
              await this.withRetries('start s3rver', () => cluster.s3.startServer());
            } else {
              for (const node of cluster.nodes) node.s3Proxy.set({ kind: 'http503' });
              await sleep(down);
              for (const node of cluster.nodes) node.s3Proxy.set({ kind: 'pass' });
            }
          },
        };
      }
      case 'link-delay':
      case 'link-cut':
      case 'link-reset': {
        const node = this.random.pick(cluster.workers);
        const proxy = this.random.next() < 0.5 ? node.pgProxy : node.s3Proxy;
        if (this.busy.has(proxy.name)) return null;
        const held = ms(2000, kind === 'link-delay' ? 15_000 : 10_000);
        const mode =
          kind === 'link-delay'
            ? ({ kind: 'delay', ms: ms(50, 2000) } as const)
            : kind === 'link-cut'
              ? ({ kind: 'cut' } as const)
              : ({ kind: 'reset' } as const);
        return {
          target: proxy.name,
          apply: async () => {
            proxy.set(mode);
            await sleep(held);
            proxy.set({ kind: 'pass' });
          },
        };
      }
    }
  }

  /** Restarts a killed node; a start that fails (PostgreSQL down at that moment) is tried again, a bounded number. */
  private async restart(node: SoakNode): Promise<void> {
    await this.withRetries(`restart ${node.name}`, async () => {
      // Started meanwhile by the cluster's supervision (after a crash): nothing to do.
      if (this.cluster.isAlive(node) || node.starting) return;
      await this.cluster.startNode(node);
    });
  }

  private async withRetries(what: string, work: () => Promise<void>): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await work();
      } catch (err) {
        if (attempt >= 10) throw new Error(`${what}: ${(err as Error).message}`);
        this.say(`${what} failed (attempt ${attempt}): ${(err as Error).message}; retrying`);
        await sleep(2000 * attempt);
      }
    }
  }

  /** Undoes whatever is still applied: every node running and not paused, every link passing, servers up. */
  async heal(): Promise<void> {
    for (const node of this.cluster.nodes) {
      node.pgProxy.set({ kind: 'pass' });
      node.s3Proxy.set({ kind: 'pass' });
      if (node.stopped) this.cluster.resume(node);
    }
    await this.withRetries('start PostgreSQL', () =>
      this.cluster.postgres.startServer().catch(async (err) => {
        // pg_ctl start on a running server fails; that is fine.
        if (!(await this.postgresAnswers())) throw err;
      }),
    );
    await this.withRetries('start s3rver', () => this.cluster.s3.startServer());
    for (const node of this.cluster.nodes) if (!this.cluster.isAlive(node)) await this.restart(node);
  }

  private async postgresAnswers(): Promise<boolean> {
    const pg = (await import('pg')).default;
    const client = new pg.Client({ connectionString: this.cluster.postgres.url, connectionTimeoutMillis: 3000 });
    try {
      await client.connect();
      await client.query('select 1');
      return true;
    } catch {
      return false;
    } finally {
      await client.end().catch(() => undefined);
    }
  }
}
