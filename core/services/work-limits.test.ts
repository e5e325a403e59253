import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { definePlugin, type PluginInput } from '../contract/index.js';
import { configureScopedConfinement, probeConfinement } from '../engines/confine.js';
import { runProcess } from '../engines/process.js';
import { checkWork, describeAmount, measureWork, runTimeoutMs, workForDeadline } from './work-limits.js';

const input = (bytes: number): PluginInput => ({ path: `/tmp/${bytes}`, format: 'mp3', filename: 'a.mp3', bytes });

const plugin = definePlugin({
  id: 'test-work',
  kind: 'tool',
  op: 'test-work',
  title: 'Test',
  inputs: ['mp3'],
  options: z.object({}),
  plan: 'free',
  licenses: [],
  engines: [],
  limits: {
    concurrency: 1,
    timeoutMs: (_inputs, measured) => 1000 + (measured ?? 0) * 10,
    work: { unit: 'seconds', max: 3600, measure: async (file) => (file.bytes < 0 ? undefined : file.bytes / 100) },
  },
  run: async () => ({ row: {} }),
});

describe('bounded work per job', () => {
  it(
    'measures for the deadline once: a known measure is reused, and none is taken when the deadline ignores' + ' it',
    async () => {
      let measures = 0;
      const counted = (scalesDeadline?: boolean) =>
        definePlugin({
          ...plugin,
          limits: {
            ...plugin.limits,
            work: {
              unit: 'seconds',
              max: 3600,
              measure: async (file) => {
                measures++;
                return file.bytes / 100;
              },
              ...(scalesDeadline === undefined ? {} : { scalesDeadline }),
            },
          },
        });
      expect(await workForDeadline(counted(), [input(1000)], '/tmp', undefined)).toBe(10);
      expect(measures).toBe(1);
      expect(await workForDeadline(counted(), [input(1000)], '/tmp', undefined, { measured: 12 })).toBe(12);
      expect(
        await workForDeadline(counted(), [input(1000)], '/tmp', undefined, { measured: undefined }),
      ).toBeUndefined();
      expect(await workForDeadline(counted(false), [input(1000)], '/tmp', undefined)).toBeUndefined();
      expect(measures).toBe(1);
    },
  );

  it('measures all inputs together, and leaves a file it cannot measure to the run', async () => {
    expect(await measureWork(plugin, [input(1000), input(2000)], '/tmp')).toBe(30);
    expect(await measureWork(plugin, [input(1000), input(-1)], '/tmp')).toBeUndefined();
  });

  it('refuses past the maximum with a message naming the limit', () => {
    expect(() => checkWork(plugin, "op 'test-work'", 3600, 'a.mp3')).not.toThrow();
    expect(() => checkWork(plugin, "op 'test-work'", undefined, 'a.mp3')).not.toThrow();
    expect(() => checkWork(plugin, "op 'test-work'", 7300, 'a.mp3')).toThrow(
      "op 'test-work' takes at most 1 hour of media per job; a.mp3 has 2.03 hours of media: cut it first (op " +
        'trim-media)',
    );
    // Just past the limit: the exact amount, not the rounded one that reads like the limit.
    expect(() => checkWork(plugin, "op 'test-work'", 3605, 'a.mp3')).toThrow(
      "op 'test-work' takes at most 1 hour of media per job; " +
        'a.mp3 has 3,605 seconds of media: cut it first (op trim-media)',
    );
  });

  it('hands the measure to the deadline', () => {
    expect(runTimeoutMs(plugin, [input(1)], 60)).toBe(1600);
    expect(describeAmount(5000, 'pages')).toBe('5,000 pages');
    expect(describeAmount(90, 'seconds')).toBe('90 seconds of media');
  });
});

describe.skipIf(!(await probeConfinement()).ok)('a measure of an upload, where the process runs no plugin', () => {
  it('reads the upload in a jail that sees it and the measure folder, not the files beside it', async () => {
    const root = await mkdtemp(path.join(os.tmpdir(), 'measure-jail-'));
    const blobs = path.join(root, 'blobs');
    const workDir = path.join(root, 'measure');
    await mkdir(blobs);
    await mkdir(workDir);
    await writeFile(path.join(blobs, 'upload.mp3'), 'x'.repeat(500));
    await writeFile(path.join(blobs, 'another-tenant.mp3'), 'secret');
    // The measure's engine call: the upload's size, or undefined when the file beside it can be read.
    const peeking = definePlugin({
      ...plugin,
      limits: {
        ...plugin.limits,
        work: {
          unit: 'seconds',
          max: 3600,
          measure: async (file) => {
            const script = `test -r "$2" && echo seen || wc -c < "$1"`;
            const beside = path.join(path.dirname(file.path), 'another-tenant.mp3');
            const { stdout } = await runProcess('sh', ['-c', script, 'sh', file.path, beside], { timeoutMs: 10_000 });
            return stdout.trim() === 'seen' ? undefined : Number(stdout.trim()) / 100;
          },
        },
      },
    });
    const upload = { ...input(500), path: path.join(blobs, 'upload.mp3') };
    try {
      expect(await measureWork(peeking, [upload], workDir)).toBeUndefined();
      configureScopedConfinement(true);
      expect(await measureWork(peeking, [upload], workDir)).toBe(5);
    } finally {
      configureScopedConfinement(false);
      await rm(root, { recursive: true, force: true });
    }
  });
});
