/**
 * A worker killed mid-run leaves its job's work folder (the run that would remove it is gone). Each worker sweeps
 * its work root: folders of jobs that ended, or that the store does not know, go; an unfinished job's stays (a
 * process sharing DATA_DIR may be running it); anything not named like a job is not the sweep's.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { Registry } from '../registry/index.js';
import type { SqliteStore } from '../store/sqlite/index.js';
import type { Services } from './index.js';
import { servicesOverSqlite } from './testing/services.js';
import { textToMarkdownTestPlugin } from './testing/text-plugin.js';

let dir: string;
let store: SqliteStore;
let services: Services;
let workRoot: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'transmute-work-sweep-'));
  ({ store, services, workRoot } = servicesOverSqlite(
    dir,
    new Registry([]),
    'work-sweep-test-secret-of-32-bytes-at-least',
  ));
});
afterEach(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

it(
  "removes the work folders of ended and unknown jobs, keeps an unfinished job's and what is not a" + " job's",
  async () => {
    const account = await services.accounts.createAccount({ plan: 'pro' });
    const job = async () => {
      const now = new Date();
      return store.jobs.jobs.create({
        id: randomUUID(),
        accountId: account.id,
        kind: 'convert',
        pluginId: textToMarkdownTestPlugin.id,
        op: null,
        inputFormat: 'txt',
        target: 'md',
        options: {},
        inputs: [],
        creditCost: 0,
        creditPeriod: '2026-11',
        viaApi: true,
        createdAt: now,
        inputsExpireAt: new Date(now.getTime() + 3_600_000),
      });
    };
    const ended = await job();
    await store.jobs.jobs.fail(ended.id, 'engine crashed', new Date(), () => null);
    const running = await job();
    await store.jobs.jobs.start(running.id, new Date());
    const unknown = randomUUID();
    for (const id of [ended.id, running.id, unknown, 'office-profile']) {
      await mkdir(path.join(workRoot, id, '1'), { recursive: true });
      await writeFile(path.join(workRoot, id, '1', 'input.txt'), 'left by a killed run');
    }

    expect(await services.runner.sweepWork()).toBe(2);
    expect((await readdir(workRoot)).sort()).toEqual([running.id, 'office-profile'].sort());
    // Nothing to do is fine, and a missing work root too.
    expect(await services.runner.sweepWork()).toBe(0);
    await rm(workRoot, { recursive: true });
    expect(await services.runner.sweepWork()).toBe(0);
  },
);
