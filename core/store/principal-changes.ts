/** PrincipalChanges for stores without a notification channel: remembered principals expire after `ttlMs`. */
import type { PrincipalChanges } from './types.js';

export function unannouncedPrincipalChanges(ttlMs: number): PrincipalChanges {
  return {
    cacheForMs: () => ttlMs,
    publish: async () => undefined,
    subscribe: () => () => undefined,
  };
}
