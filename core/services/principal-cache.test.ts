/**
 * PrincipalCache's rules, with a channel driven by hand: what another process announces drops only that account's
 * principals (or all, when the channel was down), and a principal read before a change is never remembered after it.
 */
import { describe, expect, it, vi } from 'vitest';
import type { ApiKeyRecord, PrincipalChanges } from '../store/types.js';
import { PrincipalCache } from './principal-cache.js';

function channel(cacheForMs = 60_000) {
  let listener: (accountId: string | null) => void = () => undefined;
  const changes: PrincipalChanges = {
    cacheForMs: () => cacheForMs,
    publish: async () => undefined,
    subscribe: (heard) => {
      listener = heard;
      return () => undefined;
    },
  };
  return { changes, announce: (accountId: string | null) => listener(accountId) };
}

const record = (id: string, accountId: string): ApiKeyRecord => ({
  id,
  accountId,
  hash: `hash-${id}`,
  prefix: 'tm_',
  createdAt: new Date(),
  revokedAt: null,
});

function remember(cache: PrincipalCache<{ account: { id: string } }>, keyId: string, accountId: string) {
  const readAt = cache.readingFromStore();
  cache.remember(`hash-${keyId}`, { account: { id: accountId } }, record(keyId, accountId), readAt);
}

describe('PrincipalCache', () => {
  it("drops the changed account's principals only, and every one when the channel was down", () => {
    const { changes, announce } = channel();
    const cache = new PrincipalCache(changes);
    expect(cache.get('hash-a1')).toBeUndefined(); // subscribes
    remember(cache, 'a1', 'account-a');
    remember(cache, 'a2', 'account-a');
    remember(cache, 'b1', 'account-b');
    announce('account-a');
    expect(cache.get('hash-a1')).toBeUndefined();
    expect(cache.get('hash-a2')).toBeUndefined();
    expect(cache.get('hash-b1')?.principal.account.id).toBe('account-b');
    announce(null);
    expect(cache.get('hash-b1')).toBeUndefined();
  });

  it('does not remember a principal read before a change heard during the read', () => {
    const { changes, announce } = channel();
    const cache = new PrincipalCache(changes);
    cache.get('hash-a1');
    const readAt = cache.readingFromStore();
    announce('account-other'); // any change: the read may be older than it
    cache.remember('hash-a1', { account: { id: 'account-a' } }, record('a1', 'account-a'), readAt);
    expect(cache.get('hash-a1')).toBeUndefined();
  });

  it('reads the store again once cacheForMs has passed, heard or not', () => {
    vi.useFakeTimers({ toFake: ['performance'] });
    try {
      const cache = new PrincipalCache(channel(60_000).changes);
      cache.get('hash-a1');
      remember(cache, 'a1', 'account-a');
      vi.advanceTimersByTime(59_999);
      expect(cache.get('hash-a1')).toBeDefined();
      vi.advanceTimersByTime(1);
      expect(cache.get('hash-a1')).toBeUndefined();
    } finally {
      vi.useRealTimers();
    }
  });
});
