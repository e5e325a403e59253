/**
 * Memory of a process tree: proportional set size counts pages its processes share once, where RSS counts them in each.
 */
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import {
  killTree,
  processTree,
  pssSince,
  treeMemory,
  treePssBytes,
  treePssOver,
  treeRssBytes,
} from './process-tree.js';

const MB = 1_000_000;

describe('treePssBytes', () => {
  it('counts 64 MB that a parent and its forked child share once, where the RSS sum counts it twice', async () => {
    // Written before the fork: copy-on-write pages, resident in both processes and shared by them.
    const script = [
      'import os, sys, time',
      'data = b"x" * (64 << 20)',
      'child = os.fork()',
      'print("ready", flush=True) if child else None',
      'time.sleep(60)',
    ].join('\n');
    const root = spawn('/usr/bin/python3', ['-c', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      await new Promise<void>((resolve, reject) => {
        root.stdout.once('data', () => resolve());
        root.once('exit', (code) => reject(new Error(`python exited (${code})`)));
      });
      for (let tries = 0; (await processTree(root.pid!)).length < 2 && tries < 50; tries++) await sleep(20);
      const [rss, pss] = await Promise.all([treeRssBytes(root.pid!), treePssBytes(root.pid!)]);
      expect(rss).toBeGreaterThan(128 * MB);
      expect(pss).toBeGreaterThan(64 * MB);
      expect(pss).toBeLessThan(rss * 0.75);
      // A cap between the two: the RSS sum is past it, the proportional memory (what caps count) is not.
      const cap = (rss + pss) / 2;
      expect(await treePssOver(root.pid!, cap)).toBeUndefined();
      expect(await treePssOver(root.pid!, 32 * MB)).toBeGreaterThan(64 * MB);
      expect(await treePssOver(root.pid!, 32 * MB, pss)).toBeUndefined();
    } finally {
      await killTree(root.pid!);
    }
  }, 30_000);
});

describe('pssSince', () => {
  it('estimates the idle tree from an earlier reading: one gone counts nothing, nor does a newcomer', async () => {
    // The parent holds 32 MB of its own; each "fork" line on stdin forks a child that writes 48 MB of its own.
    const script = [
      'import os, signal, sys, time',
      'signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children reaped as they die',
      'data = b"x" * (32 << 20)',
      'print("ready", flush=True)',
      'for line in sys.stdin:',
      '    if os.fork() == 0:',
      '        mine = b"y" * (48 << 20)',
      '        print("forked", flush=True)',
      '        time.sleep(60)',
      '        os._exit(0)',
    ].join('\n');
    const root = spawn('/usr/bin/python3', ['-c', script], { stdio: ['pipe', 'pipe', 'inherit'] });
    const lines: string[] = [];
    root.stdout.setEncoding('utf8').on('data', (chunk: string) => lines.push(...chunk.split('\n').filter(Boolean)));
    const waitFor = async (count: number) => {
      for (let tries = 0; lines.length < count && tries < 250; tries++) await sleep(20);
      expect(lines.length).toBe(count);
    };
    try {
      await waitFor(1);
      root.stdin.write('fork\n');
      await waitFor(2);
      const then = await treeMemory(root.pid!);
      expect(then.processes.map((p) => p.pid)).toContain(root.pid);
      expect(then.processes).toHaveLength(2);
      expect(then.pssBytes).toBeGreaterThan(80 * MB);
      // Nothing changed: the estimate is the reading (RSS moves by a few pages at most).
      const same = await pssSince(root.pid!, then);
      expect(same).toBeLessThanOrEqual(then.pssBytes);
      expect(same).toBeGreaterThan(then.pssBytes - 4 * MB);
      // The child goes and another comes: the one gone counts nothing, and so does the newcomer.
      const child = then.processes.find((p) => p.pid !== root.pid)!;
      process.kill(child.pid, 'SIGKILL');
      root.stdin.write('fork\n');
      await waitFor(3);
      for (let tries = 0; (await processTree(root.pid!)).some((p) => p.pid === child.pid) && tries < 50; tries++)
        await sleep(20);
      const tree = await processTree(root.pid!);
      expect(tree).toHaveLength(2);
      const estimate = await pssSince(root.pid!, then);
      const parentThen = then.processes.find((p) => p.pid === root.pid)!.pssBytes;
      expect(estimate).toBeLessThanOrEqual(parentThen);
      expect(estimate).toBeGreaterThan(parentThen - 4 * MB);
      // ...while a reading now counts the newcomer's 48 MB.
      expect((await treeMemory(root.pid!)).pssBytes).toBeGreaterThan(estimate + 40 * MB);
    } finally {
      await killTree(root.pid!);
    }
  }, 30_000);
});
