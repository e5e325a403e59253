/**
 * The contract every Store adapter passes (like Keyv's test-suite): each adapter's test file calls
 * `storeContractSuite` with a way to open stores on fresh, empty storage. One suite per aggregate
 * (contract/*.ts), so an adapter can be brought up one aggregate at a time.
 */
import { describe, expect, it } from 'vitest';
import { accountsContract } from './contract/accounts.js';
import { creditsContract } from './contract/credits.js';
import { type CreateStorage, useStoreHarness } from './contract/harness.js';
import { jobsContract } from './contract/jobs.js';
import { linksContract } from './contract/links.js';
import { webhooksContract } from './contract/webhooks.js';

export type { StoreStorage } from './contract/harness.js';

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
