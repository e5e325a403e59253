import { describe, expect, it } from 'vitest';
import { MB } from '../../schema/index.js';
import { scaledTimeout, singleInput, totalBytes, type PluginInput } from './index.js';

const input = (bytes: number): PluginInput => ({ path: '/x', format: 'txt', filename: 'x.txt', bytes });

describe('plugin helpers', () => {
  it('singleInput: the one input, else a bug', () => {
    const one = input(1);
    expect(singleInput([one])).toBe(one);
    expect(() => singleInput([])).toThrow('expected exactly one input, got 0');
    expect(() => singleInput([one, one])).toThrow('expected exactly one input, got 2');
  });

  it('scaledTimeout: the base for a small file, plus the per-MB allowance (decimal MB), capped', () => {
    const timeout = scaledTimeout({ baseMs: 20_000, perMbMs: 10_000, maxMs: 60_000 });
    expect(timeout([input(1_000)])).toBe(20_010);
    expect(timeout([input(MB), input(MB)])).toBe(40_000);
    expect(timeout([input(100 * MB)])).toBe(60_000);
    expect(scaledTimeout({ baseMs: 1_000, perMbMs: 1_000 })([input(1_000_000 * MB)])).toBe(6 * 3600_000);
    expect(totalBytes([input(3), input(4)])).toBe(7);
  });
});
