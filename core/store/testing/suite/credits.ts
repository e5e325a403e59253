/**
 * The store contract for credit usage, free trials and rate windows: every adapter's test file runs it (see
 * ../suite.ts).
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../types.js';
import { type CreateStorage, MINUTE, at, useStoreHarness } from './harness.js';

export function creditsContract(name: string, createStorage: CreateStorage): void {
  describe(`${name}: credit usage, free trials and rate windows`, () => {
    const harness = useStoreHarness(createStorage);
    let store: Store;
    beforeEach(() => {
      store = harness.store;
    });
    const { newAccount, openAnother } = harness;

    describe('free trials', () => {
      let accountId: string;
      beforeEach(async () => {
        accountId = (await newAccount({ plan: 'free' })).id;
      });

      it('claims a trial once; a second claim answers false', async () => {
        expect(await store.credits.trials.claim(accountId, 'parse-cv', at())).toBe(true);
        expect(await store.credits.trials.claim(accountId, 'parse-cv', at(1000))).toBe(false);
        expect(await store.credits.trials.claim(accountId, 'parse-cv', at(2000))).toBe(false);
      });

      it('gives exactly one of many concurrent claims from several instances', async () => {
        const stores = [store, await openAnother(), await openAnother()];
        const answers = await Promise.all(
          [...Array(12)].map((_, i) => stores[i % stores.length]!.credits.trials.claim(accountId, 'parse-cv', at(i))),
        );
        expect(answers.filter(Boolean)).toHaveLength(1);
        expect(await store.credits.trials.claim(accountId, 'parse-cv', at())).toBe(false);
      });

      it(
        'can be claimed again after a release; releasing twice or releasing an unclaimed trial is ' + 'harmless',
        async () => {
          await store.credits.trials.release(accountId, 'parse-cv');
          expect(await store.credits.trials.claim(accountId, 'parse-cv', at())).toBe(true);
          await store.credits.trials.release(accountId, 'parse-cv');
          await store.credits.trials.release(accountId, 'parse-cv');
          expect(await store.credits.trials.claim(accountId, 'parse-cv', at(1000))).toBe(true);
          expect(await store.credits.trials.claim(accountId, 'parse-cv', at(2000))).toBe(false);
          const other = await openAnother();
          await other.credits.trials.release(accountId, 'parse-cv');
          expect(await store.credits.trials.claim(accountId, 'parse-cv', at(3000))).toBe(true);
        },
      );

      it('keeps tools and accounts apart', async () => {
        const other = (await newAccount({ plan: 'free' })).id;
        expect(await store.credits.trials.claim(accountId, 'parse-cv', at())).toBe(true);
        expect(await store.credits.trials.claim(accountId, 'file-search', at())).toBe(true);
        expect(await store.credits.trials.claim(other, 'parse-cv', at())).toBe(true);
        expect(await store.credits.trials.claim(accountId, 'file-search', at())).toBe(false);
        expect(await store.credits.trials.claim(other, 'parse-cv', at())).toBe(false);
        await store.credits.trials.release(accountId, 'parse-cv');
        expect(await store.credits.trials.claim(other, 'parse-cv', at())).toBe(false);
        expect(await store.credits.trials.claim(accountId, 'file-search', at())).toBe(false);
        expect(await store.credits.trials.claim(accountId, 'parse-cv', at())).toBe(true);
        expect(await store.credits.trials.claim(other, 'file-search', at())).toBe(true);
      });
    });

    describe('credit usage', () => {
      let accountId: string;
      beforeEach(async () => {
        accountId = (await newAccount()).id;
      });

      it('reads zero for a period never charged', async () => {
        expect(await store.credits.usage.get(accountId, '2030-01')).toEqual({ accountId, period: '2030-01', used: 0 });
      });

      it('charges up to the limit exactly, refuses past it without changing usage', async () => {
        expect(await store.credits.usage.charge(accountId, '2030-01', 60, 100)).toEqual({ ok: true, used: 60 });
        expect(await store.credits.usage.charge(accountId, '2030-01', 41, 100)).toEqual({ ok: false, used: 60 });
        expect(await store.credits.usage.charge(accountId, '2030-01', 40, 100)).toEqual({ ok: true, used: 100 });
        expect(await store.credits.usage.charge(accountId, '2030-01', 1, 100)).toEqual({ ok: false, used: 100 });
        expect(await store.credits.usage.charge(accountId, '2030-02', 101, 100)).toEqual({ ok: false, used: 0 });
        expect((await store.credits.usage.get(accountId, '2030-01')).used).toBe(100);
      });

      it('charges without a cap when the limit is null (overage)', async () => {
        expect(await store.credits.usage.charge(accountId, '2030-01', 500, null)).toEqual({ ok: true, used: 500 });
        expect(await store.credits.usage.charge(accountId, '2030-01', 500, null)).toEqual({ ok: true, used: 1000 });
      });

      it('keeps periods and accounts apart', async () => {
        const other = await newAccount();
        await store.credits.usage.charge(accountId, '2030-01', 5, 100);
        await store.credits.usage.charge(accountId, '2030-02', 7, 100);
        await store.credits.usage.charge(other.id, '2030-01', 9, 100);
        expect((await store.credits.usage.get(accountId, '2030-01')).used).toBe(5);
        expect((await store.credits.usage.get(accountId, '2030-02')).used).toBe(7);
        expect((await store.credits.usage.get(other.id, '2030-01')).used).toBe(9);
      });

      it('never overspends under many concurrent charges from several instances at the allowance edge', async () => {
        const others = [await openAnother(), await openAnother()];
        const stores = [store, ...others];
        // 60 charges of 3 against 100: exactly 33 fit (99), whatever the interleaving.
        const results = await Promise.all(
          [...Array(60)].map((_, i) => stores[i % stores.length]!.credits.usage.charge(accountId, '2030-01', 3, 100)),
        );
        expect(results.filter((r) => r.ok)).toHaveLength(33);
        expect(results.every((r) => r.used <= 100)).toBe(true);
        expect((await store.credits.usage.get(accountId, '2030-01')).used).toBe(99);
      });

      it('refunds without going below zero, and sets usage outright', async () => {
        await store.credits.usage.charge(accountId, '2030-01', 10, null);
        await store.credits.usage.refund(accountId, '2030-01', 4);
        expect((await store.credits.usage.get(accountId, '2030-01')).used).toBe(6);
        await store.credits.usage.refund(accountId, '2030-01', 50);
        expect((await store.credits.usage.get(accountId, '2030-01')).used).toBe(0);
        await store.credits.usage.set(accountId, '2030-03', 77);
        await store.credits.usage.set(accountId, '2030-01', 12);
        expect((await store.credits.usage.get(accountId, '2030-03')).used).toBe(77);
        expect(await store.credits.usage.charge(accountId, '2030-01', 10, 20)).toEqual({ ok: false, used: 12 });
      });
    });

    describe('rate windows', () => {
      const window = 1_800_000_000_000;

      it('counts hits per key and window', async () => {
        expect(await store.credits.rates.hit('key-a', window)).toBe(1);
        expect(await store.credits.rates.hit('key-a', window)).toBe(2);
        expect(await store.credits.rates.hit('key-b', window)).toBe(1);
        expect(await store.credits.rates.hit('key-a', window + MINUTE)).toBe(1);
        expect(await store.credits.rates.hit('key-a', window)).toBe(3);
      });

      it('gives every concurrent hit from several instances its own count', async () => {
        const stores = [store, await openAnother()];
        const counts = await Promise.all(
          [...Array(30)].map((_, i) => stores[i % 2]!.credits.rates.hit('busy', window)),
        );
        expect([...counts].sort((a, b) => a - b)).toEqual([...Array(30)].map((_, i) => i + 1));
      });

      it('forgets windows that started before the given one', async () => {
        await store.credits.rates.hit('key-a', window - 2 * MINUTE);
        await store.credits.rates.hit('key-a', window - MINUTE);
        await store.credits.rates.hit('key-a', window);
        await store.credits.rates.deleteBefore(window - MINUTE);
        expect(await store.credits.rates.hit('key-a', window - 2 * MINUTE)).toBe(1);
        expect(await store.credits.rates.hit('key-a', window - MINUTE)).toBe(2);
        expect(await store.credits.rates.hit('key-a', window)).toBe(2);
      });
    });
  });
}
