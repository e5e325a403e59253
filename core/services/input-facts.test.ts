import { describe, expect, it } from 'vitest';
import { InputFactsCache } from './input-facts.js';

describe('InputFactsCache', () => {
  it('gives an entry once: a second take (a retried attempt) finds nothing', () => {
    const cache = new InputFactsCache();
    cache.put('uploads/a', { ffprobe: { format: 'mov', output: {} } });
    expect(cache.take('uploads/a')).toEqual({ ffprobe: { format: 'mov', output: {} } });
    expect(cache.take('uploads/a')).toBeUndefined();
    expect(cache.take('uploads/never')).toBeUndefined();
  });

  it('keeps nothing for a measure without facts, or facts larger than the limit', () => {
    const cache = new InputFactsCache({ maxEntryChars: 100 });
    cache.put('uploads/none', undefined);
    cache.put('uploads/big', { ffprobe: 'x'.repeat(200) });
    expect(cache.size).toBe(0);
  });

  it('drops the oldest entries past its size, and entries no run took within the TTL', () => {
    let now = 0;
    const cache = new InputFactsCache({ maxEntries: 2, ttlMs: 1_000 }, () => now);
    cache.put('uploads/1', { n: 1 });
    cache.put('uploads/2', { n: 2 });
    cache.put('uploads/3', { n: 3 });
    expect(cache.size).toBe(2);
    expect(cache.take('uploads/1')).toBeUndefined();
    now = 1_500;
    expect(cache.take('uploads/2')).toBeUndefined();
    cache.put('uploads/4', { n: 4 });
    // The expired entry went when the new one came.
    expect(cache.size).toBe(1);
    expect(cache.take('uploads/4')).toEqual({ n: 4 });
  });
});
