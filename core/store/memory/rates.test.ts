import { describe, expect, it } from 'vitest';
import { memoryRates } from './rates.js';

const MINUTE = 60_000;
const window = 1_800_000_000_000;

describe('memoryRates (the embedded API server counts requests in memory)', () => {
  it('counts hits per key and window', async () => {
    const rates = memoryRates();
    expect(await rates.hit('key-a', window)).toBe(1);
    expect(await rates.hit('key-a', window)).toBe(2);
    expect(await rates.hit('key-b', window)).toBe(1);
    expect(await rates.hit('key-a', window + MINUTE)).toBe(1);
    expect(await rates.hit('key-a', window)).toBe(3);
  });

  it('gives every concurrent hit its own count', async () => {
    const rates = memoryRates();
    const counts = await Promise.all([...Array(30)].map(() => rates.hit('busy', window)));
    expect([...counts].sort((a, b) => a - b)).toEqual([...Array(30)].map((_, i) => i + 1));
  });

  it('forgets windows that started before the given one', async () => {
    const rates = memoryRates();
    await rates.hit('key-a', window - 2 * MINUTE);
    await rates.hit('key-a', window - MINUTE);
    await rates.hit('key-a', window);
    await rates.deleteBefore(window - MINUTE);
    expect(await rates.hit('key-a', window - 2 * MINUTE)).toBe(1);
    expect(await rates.hit('key-a', window - MINUTE)).toBe(2);
    expect(await rates.hit('key-a', window)).toBe(2);
  });
});
