/**
 * A client's document cannot read the server's files or make the server fetch URLs, with the engines
 * confined (the default). The cases are the shared confinement suite (testing/confinement-suite.ts), which
 * test/confinement-unjailed.e2e.test.ts runs again with ENGINE_SANDBOX=off; here also what happens when jails
 * cannot be made.
 */
import { describe, expect, it } from 'vitest';
import { probeConfinement } from '../core/engines/confine.js';
import { getJson, startServer } from './helpers.js';
import { confinementSuite } from './testing/confinement-suite.js';

const confinable = (await probeConfinement()).ok;

confinementSuite({ title: 'engines confined', sandbox: 'on', skip: !confinable });

describe('when jails cannot be made', () => {
  it('the server refuses to start and says why; ENGINE_SANDBOX=off starts it unconfined, and /readyz says so', {
    timeout: 120_000,
  }, async () => {
    const savedPath = process.env.PATH;
    // No bwrap to be found: as on a machine without bubblewrap.
    process.env.PATH = '/nonexistent';
    try {
      await expect(startServer()).rejects.toThrow(
        /Engines cannot run confined: bwrap is not installed .*ENGINE_SANDBOX=off/,
      );
    } finally {
      process.env.PATH = savedPath;
    }
    const bare = await startServer({ env: { ENGINE_SANDBOX: 'off' } });
    try {
      expect((await getJson(`${bare.url}/readyz`, undefined)).body.confinement).toEqual({ mode: 'off' });
    } finally {
      await bare.close();
    }
  });
});
