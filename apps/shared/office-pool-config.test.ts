/** The office pool's settings: OFFICE_POOL_SIZE=0 is the cold baseline the benchmark compares against. */
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';

describe('office pool configuration', () => {
  it('defaults to one warm listener per core, recycled after 200 conversions or 1000 MB', () => {
    expect(loadConfig({}).officePool).toEqual({
      size: os.availableParallelism(),
      maxConversions: 200,
      maxRssMb: 1000,
      warm: true,
    });
    // An empty value (as compose files pass unset variables) is the default, not 0.
    expect(loadConfig({ OFFICE_POOL_SIZE: '' }).officePool.size).toBe(os.availableParallelism());
  });

  it('OFFICE_POOL_SIZE=0 disables the pool; the other variables are read', () => {
    expect(
      loadConfig({
        OFFICE_POOL_SIZE: '0',
        OFFICE_POOL_MAX_CONVERSIONS: '5',
        OFFICE_POOL_MAX_RSS_MB: '400',
        OFFICE_POOL_WARM: '0',
      }).officePool,
    ).toEqual({
      size: 0,
      maxConversions: 5,
      maxRssMb: 400,
      warm: false,
    });
    expect(loadConfig({ OFFICE_POOL_WARM: 'false' }).officePool.warm).toBe(false);
  });

  it('refuses values that make no sense', () => {
    expect(() => loadConfig({ OFFICE_POOL_SIZE: '-1' })).toThrow(/OFFICE_POOL_SIZE/);
    expect(() => loadConfig({ OFFICE_POOL_SIZE: 'many' })).toThrow(/OFFICE_POOL_SIZE/);
    expect(() => loadConfig({ OFFICE_POOL_MAX_CONVERSIONS: '0' })).toThrow(/OFFICE_POOL_MAX_CONVERSIONS/);
    expect(() => loadConfig({ OFFICE_POOL_WARM: 'yes' })).toThrow(/OFFICE_POOL_WARM/);
  });
});
