/** The store contract for download links and signed URLs: every adapter's test file runs it (see ../suite.ts). */
import { beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../types.js';
import { type CreateStorage, MINUTE, HOUR, at, makeJob, makeToken, useStoreHarness } from './harness.js';

export function linksContract(name: string, createStorage: CreateStorage): void {
  describe(`${name}: download links and signed URLs`, () => {
    const harness = useStoreHarness(createStorage);
    let store: Store;
    beforeEach(() => {
      store = harness.store;
    });
    const { newAccount, openAnother } = harness;

    describe('download tokens', () => {
      let jobId: string;
      beforeEach(async () => {
        const account = await newAccount();
        jobId = (await store.jobs.jobs.create(makeJob(account.id))).id;
      });

      it('round-trips a token and answers null for an unknown hash', async () => {
        const token = makeToken(jobId, { kind: 'signed', reusable: false });
        await store.links.tokens.create(token);
        expect(await store.links.tokens.get(token.hash)).toEqual(token);
        expect(await store.links.tokens.get('0'.repeat(32))).toBeNull();
      });

      it('consumes a single-use token exactly once, even under concurrent requests', async () => {
        const token = makeToken(jobId, { kind: 'signed', reusable: false });
        await store.links.tokens.create(token);
        const other = await openAnother();
        const consumedAt = at(3000);
        const answers = await Promise.all(
          [...Array(12)].map((_, i) => (i % 2 ? other : store).links.tokens.consume(token.hash, consumedAt)),
        );
        expect(answers.filter(Boolean)).toHaveLength(1);
        expect((await store.links.tokens.get(token.hash))?.consumedAt).toEqual(consumedAt);
        expect(await store.links.tokens.consume('0'.repeat(32), at())).toBe(false);
      });

      it('deletes tokens expired at or before the given time and counts them', async () => {
        const now = at();
        const expired = [makeToken(jobId, { expiresAt: at(-HOUR) }), makeToken(jobId, { expiresAt: now })];
        const live = makeToken(jobId, { expiresAt: at(MINUTE) });
        for (const token of [...expired, live]) await store.links.tokens.create(token);
        expect(await store.links.tokens.deleteExpired(now)).toBe(2);
        expect(await store.links.tokens.get(expired[0]!.hash)).toBeNull();
        expect(await store.links.tokens.get(live.hash)).toEqual(live);
        expect(await store.links.tokens.deleteExpired(now)).toBe(0);
      });
    });
  });
}
