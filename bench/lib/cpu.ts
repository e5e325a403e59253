/** CPU time of a process tree by kind of process (Node, Chromium browser, zygote, GPU...), for the Chromium benches. */
import { readdir, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export type CpuSnapshot = Map<number, { kind: string; seconds: number }>;

/** CPU seconds so far of `roots`' processes and their descendants (reaped children included), by kind. */
export async function cpuByKind(roots: number[]): Promise<CpuSnapshot> {
  const all = new Map<number, { ppid: number; seconds: number; kind: string }>();
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = await readFile(`/proc/${name}/stat`, 'utf8').catch(() => undefined);
    const cmdline = await readFile(`/proc/${name}/cmdline`, 'utf8').catch(() => '');
    if (!stat) continue;
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime, stime, cutime, cstime: fields 14-17 (rest[11..14]), in clock ticks (100 a second).
    const ticks = rest.slice(11, 15).reduce((sum, t) => sum + Number(t), 0);
    const args = cmdline.split('\0');
    const type = /--type=([a-z-]+)/.exec(cmdline)?.[1];
    const kind = /chromium|chrome|bwrap/.test(args[0] ?? '')
      ? `chromium ${type ?? 'browser'}`
      : /sandbox\/child/.test(cmdline)
        ? 'sandbox node'
        : /node|tsx/.test(args[0] ?? '')
          ? 'node'
          : path.basename(args[0] ?? '?');
    all.set(Number(name), { ppid: Number(rest[1]), seconds: ticks / 100, kind });
  }
  const inTree = (pid: number): boolean => {
    for (let p = pid, hops = 0; p > 1 && hops < 30; p = all.get(p)?.ppid ?? 0, hops++)
      if (roots.includes(p)) return true;
    return false;
  };
  return new Map(
    [...all].filter(([pid]) => inTree(pid)).map(([pid, v]) => [pid, { kind: v.kind, seconds: v.seconds }]),
  );
}

/** Prints the CPU spent between two snapshots per document, in all and by kind. */
export function cpuReport(before: CpuSnapshot, after: CpuSnapshot, documents: number): void {
  const byKind = new Map<string, number>();
  for (const [pid, now] of after) {
    const spent = now.seconds - (before.get(pid)?.seconds ?? 0);
    byKind.set(now.kind, (byKind.get(now.kind) ?? 0) + spent);
  }
  const total = [...byKind.values()].reduce((a, b) => a + b, 0);
  console.log(`  CPU per document: ${((total / documents) * 1000).toFixed(0)} ms in all`);
  for (const [kind, spent] of [...byKind].sort((a, b) => b[1] - a[1]))
    if (spent > 0) console.log(`    ${kind.padEnd(28)} ${((spent / documents) * 1000).toFixed(0).padStart(5)} ms`);
}

/** The share of the machine's CPU (0 to 1, all cores) in use over the next `ms`, by any process. */
export async function machineBusyShare(ms = 3_000): Promise<number> {
  const totals = () =>
    os.cpus().reduce(
      (sum, cpu) => {
        const { idle, ...busy } = cpu.times;
        return { idle: sum.idle + idle, all: sum.all + idle + Object.values(busy).reduce((a, b) => a + b, 0) };
      },
      { idle: 0, all: 0 },
    );
  const before = totals();
  await sleep(ms);
  const after = totals();
  const all = after.all - before.all;
  return all > 0 ? 1 - (after.idle - before.idle) / all : 0;
}
