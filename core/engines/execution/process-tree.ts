/**
 * A process and everything it started, read from Linux /proc: the sandbox measures a run's
 * memory over the whole tree (the Node process running the plugin plus every engine it spawned)
 * and kills the whole tree at a deadline. Engines run in their own process groups (see
 * process.ts), so killing the sandbox's group alone would leave them running.
 *
 * The tree is read with synchronous reads: each is a few hundred bytes the kernel makes from memory (no disk), a
 * few microseconds, where the promise form costs four thread-pool calls and a promise per file, about ten times the
 * CPU (a Chromium tree of ten processes and ninety threads: 9 ms of CPU against 1 ms, read several times a second
 * while a run is active; bench/NOTES.md, "Service CPU per job"). smaps_rollup, which walks page tables, stays
 * asynchronous.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';

const PAGE_BYTES = 4096;

export interface ProcStat {
  pid: number;
  ppid: number;
  pgid: number;
  rssBytes: number;
  /** When the process started (clock ticks since boot): with the pid, who it is (pids are reused). */
  startTicks: number;
}

/** Fields of /proc/<pid>/stat; the command name may hold spaces and parentheses, so split after the last ')'. */
function parseStat(pid: number, text: string): ProcStat | undefined {
  const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // rest[0] is field 3 (state): ppid is field 4, pgrp field 5, starttime field 22, rss (pages) field 24.
  const ppid = Number(rest[1]);
  const pgid = Number(rest[2]);
  const startTicks = Number(rest[19]);
  const rssPages = Number(rest[21]);
  if (!Number.isFinite(ppid) || !Number.isFinite(rssPages)) return undefined;
  return { pid, ppid, pgid, rssBytes: rssPages * PAGE_BYTES, startTicks };
}

async function allProcesses(): Promise<ProcStat[]> {
  const entries = await readdir('/proc').catch(() => [] as string[]);
  const stats = await Promise.all(
    entries
      .filter((name) => /^\d+$/.test(name))
      .map(async (name) => {
        const text = await readFile(`/proc/${name}/stat`, 'utf8').catch(() => undefined);
        return text === undefined ? undefined : parseStat(Number(name), text);
      }),
  );
  return stats.filter((s): s is ProcStat => s !== undefined);
}

/** A small /proc file's text, or undefined when the process (or thread) is gone. */
function procText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

function statOf(pid: number): ProcStat | undefined {
  const text = procText(`/proc/${pid}/stat`);
  return text === undefined ? undefined : parseStat(pid, text);
}

/** Direct children from /proc/<pid>/task/<tid>/children; undefined where the kernel lacks that file. */
function childrenOf(pid: number): number[] | undefined {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    tasks = [];
  }
  const lists = tasks.map((tid) => procText(`/proc/${pid}/task/${tid}/children`));
  if (tasks.length && lists.every((l) => l === undefined)) return undefined;
  return lists.flatMap((l) => (l ?? '').split(' ').filter(Boolean).map(Number));
}

/**
 * `root` and all its descendants that are alive now. Walks the children lists (a few reads per
 * process: this runs several times a second per active run); falls back to scanning every
 * process where the kernel has no children lists.
 */
export async function processTree(root: number): Promise<ProcStat[]> {
  const tree: ProcStat[] = [];
  const pending = [root];
  while (pending.length) {
    const pid = pending.shift()!;
    const stat = statOf(pid);
    const children = childrenOf(pid);
    if (children === undefined) return scanTree(root);
    if (stat) tree.push(stat);
    pending.push(...children);
  }
  return tree;
}

async function scanTree(root: number): Promise<ProcStat[]> {
  const all = await allProcesses();
  const byParent = new Map<number, ProcStat[]>();
  for (const proc of all) byParent.set(proc.ppid, [...(byParent.get(proc.ppid) ?? []), proc]);
  const tree = all.filter((p) => p.pid === root);
  for (let i = 0; i < tree.length; i++) tree.push(...(byParent.get(tree[i]!.pid) ?? []));
  return tree;
}

/** Resident memory of `root` and its descendants, in bytes (shared pages counted in each). */
export async function treeRssBytes(root: number): Promise<number> {
  return (await processTree(root)).reduce((sum, p) => sum + p.rssBytes, 0);
}

/** SIGKILL a process group (an engine leads its own); nothing if it is gone already. */
export function killGroup(pid: number | undefined): void {
  if (pid) kill(-pid);
}

/** Whether `pid` is a live process (EPERM: it exists under another user). */
export function isProcessAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function kill(target: number) {
  try {
    process.kill(target, 'SIGKILL');
  } catch {
    // already gone
  }
}

/**
 * SIGKILL `root`'s descendants, each one's process group (engines lead their own), and, unless
 * `keepRoot`, `root` itself. The tree is read before anything dies, so orphans are not missed.
 */
export async function killTree(root: number, { keepRoot = false } = {}): Promise<void> {
  const tree = await processTree(root);
  for (const proc of tree) {
    if (proc.pid === root) continue;
    if (proc.pgid === proc.pid) kill(-proc.pid);
    kill(proc.pid);
  }
  if (!keepRoot) kill(root);
}

/**
 * Proportional memory of `root` and its descendants (shared pages divided among their sharers),
 * for multi-process engines like Chromium whose processes share most pages: their RSS sum counts
 * the same memory several times. Falls back to RSS where smaps_rollup is unreadable.
 */
export async function treePssBytes(root: number): Promise<number> {
  return pssOf(await processTree(root));
}

/**
 * The tree's proportional memory when it is more than `limitBytes` above `baselineBytes`, else
 * undefined. Reading PSS walks every page table (milliseconds per process where stat takes
 * microseconds), and PSS never exceeds RSS: it is read only once the cheap RSS sum is past the limit.
 */
export async function treePssOver(root: number, limitBytes: number, baselineBytes = 0): Promise<number | undefined> {
  const tree = await processTree(root);
  if (tree.reduce((sum, p) => sum + p.rssBytes, 0) - baselineBytes <= limitBytes) return undefined;
  const pss = await pssOf(tree);
  return pss - baselineBytes > limitBytes ? pss : undefined;
}

/** What each process of a tree held at one moment: its proportional memory, with its RSS and identity. */
export interface TreeMemory {
  /** The PSS sum. */
  pssBytes: number;
  processes: ReadonlyArray<ProcStat & { pssBytes: number }>;
}

/** The proportional memory of `root` and its descendants, process by process. */
export async function treeMemory(root: number): Promise<TreeMemory> {
  const tree = await processTree(root);
  const sizes = await pssEach(tree);
  return {
    pssBytes: sizes.reduce((sum, bytes) => sum + bytes, 0),
    processes: tree.map((proc, i) => ({ ...proc, pssBytes: sizes[i]! })),
  };
}

/**
 * The tree's proportional memory now, estimated from an earlier reading `then` without walking page tables again
 * (the reading costs 5 ms of CPU for a Node process, 20-30 ms for a Chromium tree; this, a stat per process): each
 * process of `then` still running counts its PSS then, less what its RSS has fallen since (unmapping a page takes at
 * most that page from its PSS), never more; a process started since counts nothing. For a run's baseline, what it is
 * not charged for: a run's own growth and its new processes are charged in full. Its one error is the other way: a
 * process that shares more of its pages with a newcomer (a renderer forked from Chromium's zygote) loses PSS without
 * RSS, and the newcomer then counts that share in the run's reading, so the tree's sum balances.
 */
export async function pssSince(root: number, then: TreeMemory): Promise<number> {
  const earlier = new Map(then.processes.map((proc) => [proc.pid, proc]));
  let bytes = 0;
  for (const proc of await processTree(root)) {
    const was = earlier.get(proc.pid);
    if (!was || was.startTicks !== proc.startTicks) continue;
    bytes += Math.max(0, was.pssBytes - Math.max(0, was.rssBytes - proc.rssBytes));
  }
  return bytes;
}

async function pssOf(tree: ProcStat[]): Promise<number> {
  return (await pssEach(tree)).reduce((sum, bytes) => sum + bytes, 0);
}

function pssEach(tree: ProcStat[]): Promise<number[]> {
  return Promise.all(
    tree.map(async (proc) => {
      const text = await readFile(`/proc/${proc.pid}/smaps_rollup`, 'utf8').catch(() => undefined);
      const kb = text ? /^Pss:\s+(\d+) kB/m.exec(text)?.[1] : undefined;
      return kb ? Number(kb) * 1024 : proc.rssBytes;
    }),
  );
}
