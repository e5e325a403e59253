/**
 * The service's scratch folders: a run's work folder and an acceptance's measure folder are removed after each job,
 * with one rmdir when empty (their usual state) and the recursive walk only when a file was left. A first attempt
 * looks for no earlier attempt's folder; a later attempt still removes the one a crashed run left. Real SQLite store,
 * local blobs and work folders; the executor writes its output into the run's folder as a sandboxed plugin does.
 */
import * as fsPromises from 'node:fs/promises';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Registry } from '../registry/index.js';
import type { SqliteStore } from '../store/sqlite/index.js';
import type { Principal } from './accounts.js';
import { removeFolder } from './folders.js';
import type { Services } from './index.js';
import { servicesOverSqlite } from './testing/services.js';
import { textToMarkdownTestPlugin } from './testing/text-plugin.js';

vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs/promises')>();
  return { ...actual, readdir: vi.fn(actual.readdir), rm: vi.fn(actual.rm) };
});

const readdirCalls = vi.mocked(fsPromises.readdir);
const rmCalls = vi.mocked(fsPromises.rm);
/** The calls whose path lies under `dir`. */
const under = (calls: ReadonlyArray<readonly unknown[]>, dir: string) =>
  calls.filter(([target]) => String(target).startsWith(dir + path.sep));

describe('scratch folders', () => {
  let dir: string;
  let workRoot: string;
  let store: SqliteStore;
  let services: Services;
  let owner: Principal;

  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'transmute-folders-'));
    ({ store, services, workRoot } = servicesOverSqlite(
      dir,
      new Registry([textToMarkdownTestPlugin]),
      'folders-test-secret-of-32-bytes-at-least',
      {
        maxAttempts: 3,
        executor: {
          run: async (run) => {
            const output = path.join(run.workDir, 'notes.md');
            await writeFile(output, '# notes');
            return { path: output, format: 'md' };
          },
        },
      },
    ));
    owner = { account: await services.accounts.createAccount({ plan: 'pro' }), keyId: 'test-key' };
    readdirCalls.mockClear();
    rmCalls.mockClear();
  });

  afterEach(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  const acceptedJob = async () => {
    const upload = await services.uploads.stage({ filename: 'notes.txt', stream: Readable.from(['notes']) }, 1_000);
    return services.jobs.accept(owner, {
      upload,
      to: 'md',
      op: undefined,
      fields: {},
      fieldsAreStrings: true,
      viaApi: true,
    });
  };

  it('a first attempt: no look for earlier folders, its empty folder removed without the recursive walk', async () => {
    const { jobId } = await acceptedJob();
    await services.runner.run(jobId);
    expect((await store.jobs.jobs.get(jobId))?.status).toBe('done');
    expect(under(readdirCalls.mock.calls, workRoot)).toEqual([]);
    expect(under(rmCalls.mock.calls, workRoot)).toEqual([]);
    expect(await readdir(workRoot)).toEqual([]);
  });

  it('a later attempt removes the folder a crashed attempt left, and its own', async () => {
    const { jobId } = await acceptedJob();
    // The first attempt started, wrote into its folder and died.
    await store.jobs.jobs.start(jobId, new Date());
    await mkdir(path.join(workRoot, jobId, '1'), { recursive: true });
    await writeFile(path.join(workRoot, jobId, '1', 'half-written.md'), '# no');
    await services.runner.run(jobId);
    expect(await store.jobs.jobs.get(jobId)).toMatchObject({ status: 'done', attempts: 2 });
    expect(await readdir(workRoot)).toEqual([]);
  });

  it('removeFolder: an empty folder, a folder with files, and one already gone', async () => {
    const empty = path.join(dir, 'empty');
    await mkdir(empty);
    await removeFolder(empty);
    expect(rmCalls).not.toHaveBeenCalled();
    const full = path.join(dir, 'full');
    await mkdir(path.join(full, 'inner'), { recursive: true });
    await writeFile(path.join(full, 'inner', 'left.txt'), 'left');
    await removeFolder(full);
    await removeFolder(path.join(dir, 'never-made'));
    expect((await readdir(dir)).filter((name) => ['empty', 'full'].includes(name))).toEqual([]);
  });
});
