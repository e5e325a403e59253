import { describe, expect, it } from 'vitest';
import { DestinationRefused, classifyAddress, parseDestinationUrl, resolveDestination } from './outbound.js';

describe('classifyAddress', () => {
  it.each([
    ['8.8.8.8', 'public'],
    ['2606:4700:4700::1111', 'public'],
    ['127.0.0.1', 'private'],
    ['10.0.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.0.1', 'private'],
    ['100.64.0.1', 'private'],
    ['169.254.10.10', 'private'],
    ['0.0.0.0', 'private'],
    ['224.0.0.1', 'private'],
    ['::1', 'private'],
    ['::', 'private'],
    ['fe80::1', 'private'],
    ['fc00::1', 'private'],
    ['fd12:3456::1', 'private'],
    ['::ffff:127.0.0.1', 'private'],
    ['::ffff:7f00:1', 'private'],
    ['64:ff9b::a00:1', 'private'],
    ['::ffff:8.8.8.8', 'public'],
    ['169.254.169.254', 'metadata'],
    ['::ffff:a9fe:a9fe', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['100.100.100.200', 'metadata'],
    ['not-an-ip', 'private'],
  ])('%s is %s', (address, kind) => expect(classifyAddress(address)).toBe(kind));
});

describe('parseDestinationUrl and resolveDestination', () => {
  const closed = { allowPrivate: false };
  it('refuses plain http, credentials and non-URLs, naming what was refused', () => {
    expect(() => parseDestinationUrl('http://example.com/a', closed, 'Import URL')).toThrow(
      /^Import URL must use https$/,
    );
    expect(() => parseDestinationUrl('https://u:p@example.com/', closed, 'Import URL')).toThrow(DestinationRefused);
    expect(() => parseDestinationUrl('not a url', closed, 'Import URL')).toThrow(/not a valid URL/);
    expect(parseDestinationUrl('http://127.0.0.1:9/x#frag', { allowPrivate: true }, 'Import URL').toString()).toBe(
      'http://127.0.0.1:9/x',
    );
  });
  it('refuses loopback unless allowed, and metadata always', async () => {
    await expect(resolveDestination(new URL('https://127.0.0.1/'), closed, 'Page URL')).rejects.toThrow(
      /loopback, private/,
    );
    await expect(
      resolveDestination(new URL('https://127.0.0.1/'), { allowPrivate: true }, 'Page URL'),
    ).resolves.toEqual({ address: '127.0.0.1', family: 4 });
    await expect(
      resolveDestination(new URL('http://169.254.169.254/'), { allowPrivate: true }, 'Page URL'),
    ).rejects.toThrow(/metadata/);
    await expect(
      resolveDestination(new URL('https://[::ffff:a9fe:a9fe]/'), { allowPrivate: true }, 'Page URL'),
    ).rejects.toThrow(/metadata/);
  });
});
