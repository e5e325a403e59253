/**
 * CPU time of a server's process tree split into the service's own processes and the engines', from /proc/<pid>/stat:
 * what the service costs per job outside the engine.
 *
 * - Service: the server process (HTTP, queue, the in-process workers) and its sandbox processes (Node,
 * `sandbox/child`),
 *   each by its own utime + stime only: CPU of children they have reaped (cutime, cstime) is not theirs.
 * - Engines: every other process in the tree (bwrap and what it jails: soffice, ffmpeg, Chromium...; LibreOffice's
 *   UNO bridge apart), by its own time, plus the reaped-children time (cutime + cstime) of every process in the tree:
 *   a short engine run (ffmpeg, a cold soffice, bwrap) starts and ends between two snapshots and is seen only there.
 * - A library engine running inside a sandbox process (sharp for images) is counted as the sandbox's: /proc cannot
 *   tell it apart; the image row gives the same conversion's CPU in the bench process beside it.
 *
 * Clock ticks are 10 ms per process, so a figure needs many jobs between its two snapshots.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

const TICKS_PER_SECOND = 100;

export type ProcessKind = 'server' | 'sandbox' | 'uno bridge' | 'engine';

interface ProcessCpu {
  kind: ProcessKind;
  /** The program, for the breakdown (`soffice.bin`, `bwrap`, `chromium-headless-shell`...). */
  name: string;
  /** Own utime + stime, ms. */
  selfMs: number;
  /** Reaped children's cutime + cstime, ms. */
  childrenMs: number;
}

export type TreeCpu = Map<number, ProcessCpu>;

const kindOf = (pid: number, root: number, args: string[]): ProcessKind =>
  pid === root
    ? 'server'
    : args.some((a) => /sandbox\/child/.test(a))
      ? 'sandbox'
      : args.some((a) => /uno-bridge\.py$/.test(a))
        ? 'uno bridge'
        : 'engine';

/** The program and, for Chromium, its process type (Chromium rewrites its argv into one string). */
function programName(args: string[], stat: string): string {
  const words = (args.join(' ') || stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))).split(' ');
  const type = words.find((w) => w.startsWith('--type='))?.slice('--type='.length);
  return `${path.basename(words[0] ?? '?')}${type ? ` ${type}` : ''}`;
}

/** A snapshot of the CPU of `root` and its descendants. */
export async function treeCpu(root: number): Promise<TreeCpu> {
  const all = new Map<number, { ppid: number; cpu: ProcessCpu }>();
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    const stat = await readFile(`/proc/${name}/stat`, 'utf8').catch(() => undefined);
    if (!stat) continue;
    const args = (await readFile(`/proc/${name}/cmdline`, 'utf8').catch(() => '')).split('\0').filter(Boolean);
    // After "(comm) ": state, ppid, ... utime (field 14), stime, cutime, cstime (17): rest[11..14], in ticks.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = (i: number) => (Number(rest[i]) * 1000) / TICKS_PER_SECOND;
    all.set(pid, {
      ppid: Number(rest[1]),
      cpu: {
        kind: kindOf(pid, root, args),
        name: programName(args, stat),
        selfMs: ticks(11) + ticks(12),
        childrenMs: ticks(13) + ticks(14),
      },
    });
  }
  const inTree = (pid: number): boolean => {
    for (let p = pid, hops = 0; p > 1 && hops < 40; p = all.get(p)?.ppid ?? 0, hops++) if (p === root) return true;
    return false;
  };
  return new Map([...all].filter(([pid]) => inTree(pid)).map(([pid, v]) => [pid, v.cpu]));
}

export interface CpuPerJob {
  /** Server + sandbox processes, own time, ms per job. */
  serviceMs: number;
  serverMs: number;
  sandboxMs: number;
  /** LibreOffice's UNO bridge (Python, the pool's glue), ms per job: shown apart, in neither figure. */
  bridgeMs: number;
  /** Engine processes' own time and every reaped child's, ms per job. */
  engineMs: number;
  /** Engine ms per job by program (reaped children under `reaped`). */
  engines: Record<string, number>;
}

/** CPU per job between two snapshots of one tree, `jobs` jobs apart. */
export function cpuPerJob(before: TreeCpu, after: TreeCpu, jobs: number): CpuPerJob {
  const sums = { server: 0, sandbox: 0, 'uno bridge': 0, engine: 0 } satisfies Record<ProcessKind, number>;
  const engines: Record<string, number> = {};
  for (const [pid, now] of after) {
    const then = before.get(pid);
    // A pid reused by another program between snapshots starts from nothing.
    const same = then && then.name === now.name;
    const self = now.selfMs - (same ? then.selfMs : 0);
    const reaped = now.childrenMs - (same ? then.childrenMs : 0);
    sums[now.kind] += self;
    sums.engine += reaped;
    if (now.kind === 'engine') engines[now.name] = (engines[now.name] ?? 0) + self / jobs;
    if (reaped) engines.reaped = (engines.reaped ?? 0) + reaped / jobs;
  }
  return {
    serviceMs: (sums.server + sums.sandbox) / jobs,
    serverMs: sums.server / jobs,
    sandboxMs: sums.sandbox / jobs,
    bridgeMs: sums['uno bridge'] / jobs,
    engineMs: sums.engine / jobs,
    engines,
  };
}
