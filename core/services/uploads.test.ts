/** UploadService.measureWork: the measure folder is made only when something is written there, and always removed. */
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { copyToDir } from '../blobs/common.js';
import { LocalBlobStore } from '../blobs/local.js';
import { definePlugin, type WorkMeasure } from '../contract/index.js';
import { configureScopedConfinement, probeConfinement } from '../engines/confine.js';
import { runProcess } from '../engines/process.js';
import { UploadService } from './uploads.js';

/** A store that keeps its blobs elsewhere than on this disk: localPath copies into the folder it is given. */
class CopyingBlobStore extends LocalBlobStore {
  // The BlobStore contract always passes the folder; LocalBlobStore's own signature leaves it out.
  override localPath(key: string, dir?: string): Promise<string> {
    if (!dir) throw new Error('localPath needs the folder to copy into');
    return copyToDir(this.read(key), key, dir);
  }
}

const pluginMeasuring = (work: WorkMeasure) =>
  definePlugin({
    id: 'test-measured',
    kind: 'tool',
    op: 'test-measured',
    title: 'Test',
    inputs: ['txt'],
    options: z.object({}),
    plan: 'free',
    licenses: [],
    engines: [],
    limits: { concurrency: 1, timeoutMs: 1000, work },
    run: async () => ({ row: {} }),
  });

const jailWorks = (await probeConfinement()).ok;

describe('UploadService.measureWork', () => {
  let dir: string;
  let seen: Array<{ workDir: string; existed: boolean }>;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'transmute-uploads-measure-'));
    seen = [];
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  const measureWith = async (uploads: UploadService, work: WorkMeasure) => {
    const upload = await uploads.stage(
      { filename: 'a.txt', stream: Readable.from([Buffer.from('x'.repeat(300))]) },
      1e6,
    );
    return uploads.measureWork(pluginMeasuring(work), [{ upload, format: 'txt' }]);
  };
  const reading: WorkMeasure = {
    unit: 'pages',
    max: 10,
    readsOnly: true,
    measure: async (input, { workDir }) => {
      seen.push({ workDir, existed: existsSync(workDir) });
      return input.bytes / 100;
    },
  };

  it('makes no folder for a measure that only reads, on a store with local files', async () => {
    expect(await measureWith(new UploadService(new LocalBlobStore(dir)), reading)).toBe(3);
    expect(seen).toEqual([{ workDir: expect.stringContaining('transmute-measure-'), existed: false }]);
  });

  it('makes the folder for a measure that writes there, and removes it with what it holds', async () => {
    const writing: WorkMeasure = {
      ...reading,
      readsOnly: false,
      measure: async (input, ctx) => {
        await writeFile(path.join(ctx.workDir, 'scratch'), 'x');
        return reading.measure(input, ctx);
      },
    };
    expect(await measureWith(new UploadService(new LocalBlobStore(dir)), writing)).toBe(3);
    expect(seen[0]!.existed).toBe(true);
    expect(existsSync(seen[0]!.workDir)).toBe(false);
  });

  it('removes the folder a copy of the blob made, for a measure that only reads', async () => {
    expect(await measureWith(new UploadService(new CopyingBlobStore(dir)), reading)).toBe(3);
    expect(seen[0]!.existed).toBe(true);
    expect(existsSync(seen[0]!.workDir)).toBe(false);
  });

  it.skipIf(!jailWorks)('runs an engine of a measure that only reads in a jail', async () => {
    const counting: WorkMeasure = {
      ...reading,
      measure: async (input) => {
        const { stdout } = await runProcess('sh', ['-c', 'wc -c < "$1"', 'sh', input.path], { timeoutMs: 10_000 });
        return Number(stdout.trim()) / 100;
      },
    };
    configureScopedConfinement(true);
    try {
      expect(await measureWith(new UploadService(new LocalBlobStore(dir)), counting)).toBe(3);
    } finally {
      configureScopedConfinement(false);
    }
  });
});
