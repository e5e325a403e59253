/**
 * Memory of a process tree: proportional set size counts pages its processes share once, where RSS counts them in each.
 */
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { killTree, processTree, treePssBytes, treePssOver, treeRssBytes } from './process-tree.js';

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
