import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
// The backend first, as in production: it loads agenda-debug.ts before agenda's own code.
import { SqliteBackend } from './sqlite-backend/index.js';
import { Agenda } from 'agenda';
import createDebug from 'debug';
import { afterEach, describe, expect, it } from 'vitest';

type Hooked = typeof createDebug & { init: (instance: createDebug.Debugger) => void };

const NAMES = 20;

describe('debug children remembered (agenda-debug.ts)', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('hands back the same child for the same namespace and delimiter, and still follows enable()', () => {
    const parent = createDebug('transmute-test');
    const child = parent.extend('poll');
    expect(parent.extend('poll')).toBe(child);
    expect(parent.extend('poll', '/')).not.toBe(child);
    expect(parent.extend('poll', '/').namespace).toBe('transmute-test/poll');
    expect(child.namespace).toBe('transmute-test:poll');
    expect(child.enabled).toBeFalsy();
    createDebug.enable('transmute-test:*');
    cleanups.push(() => {
      createDebug.disable();
    });
    expect(child.enabled).toBe(true);
  });

  it('makes no debug instance while Agenda polls many job names (once each logger exists)', async () => {
    const directory = mkdtempSync(path.join(tmpdir(), 'transmute-agenda-debug-'));
    cleanups.push(() => rmSync(directory, { recursive: true, force: true }));
    const backend = new SqliteBackend({ path: path.join(directory, 'queue.db') });
    // Polls counted at the repository, so the test waits for polls rather than for time (the machine may be loaded).
    let polls = 0;
    const next = backend.repository.getNextJobToRun.bind(backend.repository);
    backend.repository.getNextJobToRun = (...args) => {
      polls++;
      return next(...args);
    };
    const pollsOfEveryName = async (rounds: number) => {
      const target = polls + rounds * NAMES;
      for (const deadline = Date.now() + 30_000; polls < target && Date.now() < deadline; ) await sleep(20);
      expect(polls).toBeGreaterThanOrEqual(target);
    };
    const agenda = new Agenda({ backend, processEvery: 20 });
    for (let i = 0; i < NAMES; i++) agenda.define(`job-${i}`, async () => undefined);
    await agenda.start();
    cleanups.push(() => agenda.stop());
    // Warm: every logger agenda's poll uses has been made once.
    await pollsOfEveryName(2);
    const hooked = createDebug as Hooked;
    const init = hooked.init;
    let made = 0;
    hooked.init = (instance) => {
      made++;
      init(instance);
    };
    cleanups.push(() => {
      hooked.init = init;
    });
    // Polls of every name: before the fix, several new instances per name and poll.
    await pollsOfEveryName(3);
    expect(made).toBe(0);
  });
});
