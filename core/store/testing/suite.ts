/**
 * The contract every Store adapter passes (like Keyv's test-suite): each adapter's test file calls
 * `storeContractSuite` with a way to open stores on fresh, empty storage. One suite per aggregate
 * (suite/*.ts), so an adapter can be brought up one aggregate at a time.
 */
import { describe, expect, it } from 'vitest';
import { accountsContract } from './suite/accounts.js';
import { creditsContract } from './suite/credits.js';
import { type CreateStorage, useStoreHarness } from './suite/harness.js';
import { jobsContract } from './suite/jobs.js';
import { linksContract } from './suite/links.js';
import { webhooksContract } from './suite/webhooks.js';

export type { StoreStorage } from './suite/harness.js';

export function storeContractSuite(name: string, createStorage: CreateStorage): void {
  describe(`${name}: store contract`, () => {
    const harness = useStoreHarness(createStorage);
    it('ping answers', async () => {
      await expect(harness.store.ping()).resolves.toBeUndefined();
    });
  });
  accountsContract(name, createStorage);
  jobsContract(name, createStorage);
  creditsContract(name, createStorage);
  linksContract(name, createStorage);
  webhooksContract(name, createStorage);
}
