/**
 * A process and everything it started, read from Linux /proc: the sandbox measures a run's
 * memory over the whole tree (the Node process running the plugin plus every engine it spawned)
 * and kills the whole tree at a deadline. Engines run in their own process groups (see
 * process.ts), so killing the sandbox's group alone would leave them running.
 */
import { readdir, readFile } from 'node:fs/promises';

const PAGE_BYTES = 4096;

interface ProcStat {
  pid: number;
  ppid: number;
  pgid: number;
  rssBytes: number;
}

/** Fields of /proc/<pid>/stat; the command name may hold spaces and parentheses, so split after the last ')'. */
function parseStat(pid: number, text: string): ProcStat | undefined {
  const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // rest[0] is field 3 (state): ppid is field 4, pgrp field 5, rss (pages) field 24.
  const ppid = Number(rest[1]);
  const pgid = Number(rest[2]);
  const rssPages = Number(rest[21]);
  if (!Number.isFinite(ppid) || !Number.isFinite(rssPages)) return undefined;
  return { pid, ppid, pgid, rssBytes: rssPages * PAGE_BYTES };
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

async function statOf(pid: number): Promise<ProcStat | undefined> {
  const text = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  return text === undefined ? undefined : parseStat(pid, text);
}

/** Direct children from /proc/<pid>/task/<tid>/children; undefined where the kernel lacks that file. */
async function childrenOf(pid: number): Promise<number[] | undefined> {
  const tasks = await readdir(`/proc/${pid}/task`).catch(() => [] as string[]);
  const lists = await Promise.all(
    tasks.map((tid) => readFile(`/proc/${pid}/task/${tid}/children`, 'utf8').catch(() => undefined)),
  );
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
    const [stat, children] = await Promise.all([statOf(pid), childrenOf(pid)]);
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

async function pssOf(tree: ProcStat[]): Promise<number> {
  const sizes = await Promise.all(
    tree.map(async (proc) => {
      const text = await readFile(`/proc/${proc.pid}/smaps_rollup`, 'utf8').catch(() => undefined);
      const kb = text ? /^Pss:\s+(\d+) kB/m.exec(text)?.[1] : undefined;
      return kb ? Number(kb) * 1024 : proc.rssBytes;
    }),
  );
  return sizes.reduce((sum, bytes) => sum + bytes, 0);
}
