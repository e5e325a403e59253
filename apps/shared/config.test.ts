import { describe, expect, it } from 'vitest';
import { loadConfig, trustProxySetting } from './config.js';

describe('TRUST_PROXY', () => {
  it('trusts no proxy unless told: a client could otherwise choose its own address', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(trustProxySetting('')).toBe(false);
    expect(trustProxySetting('false')).toBe(false);
    expect(trustProxySetting('0')).toBe(false);
  });

  it('takes every hop or the proxies\' addresses', () => {
    expect(trustProxySetting('true')).toBe(true);
    expect(trustProxySetting(' 10.0.0.0/8,127.0.0.1 ')).toBe('10.0.0.0/8,127.0.0.1');
  });
});
