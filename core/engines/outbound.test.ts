import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DestinationRefused,
  OutboundTimeout,
  classifyAddress,
  parseDestinationUrl,
  requestChecked,
  resolveDestination,
} from './outbound.js';

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

describe('requestChecked', () => {
  const open = { allowPrivate: true };
  let server: http.Server;
  let base: string;
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const { pathname, searchParams } = new URL(req.url!, 'http://x');
      if (pathname === '/hop') {
        const n = Number(searchParams.get('n'));
        return res.writeHead(302, { location: n > 0 ? `/hop?n=${n - 1}` : '/end' }).end();
      }
      if (pathname === '/metadata') return res.writeHead(302, { location: 'http://169.254.169.254/' }).end();
      if (pathname === '/slow-body') {
        res.writeHead(200);
        res.write('first bytes');
        return; // never ends
      }
      if (pathname === '/echo') return req.pipe(res.writeHead(200));
      res.writeHead(200).end(`at ${pathname}`);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });
  const text = async (body: AsyncIterable<Buffer>) => {
    let out = '';
    for await (const chunk of body) out += chunk.toString();
    return out;
  };

  it(
    'returns a redirect as the answer by default, and follows up to maxRedirects, each target checked ' + 'again',
    async () => {
      const unfollowed = await requestChecked({
        url: `${base}/hop?n=0`,
        policy: open,
        label: 'Test URL',
        timeoutMs: 5000,
      });
      expect([unfollowed.status, unfollowed.headers.location]).toEqual([302, '/end']);
      unfollowed.body.resume();
      const followed = await requestChecked({
        url: `${base}/hop?n=4`,
        policy: open,
        label: 'Test URL',
        timeoutMs: 5000,
        maxRedirects: 5,
      });
      expect([followed.status, followed.url.pathname, await text(followed.body)]).toEqual([200, '/end', 'at /end']);
      const request = { policy: open, label: 'Test URL', timeoutMs: 5000, maxRedirects: 5 };
      await expect(requestChecked({ ...request, url: `${base}/hop?n=5` })).rejects.toThrow(/more than 5 redirects/);
      await expect(requestChecked({ ...request, url: `${base}/metadata` })).rejects.toThrow(DestinationRefused);
    },
  );

  it("sends a body, and one deadline covers the answer's body too", async () => {
    const echoed = await requestChecked({
      url: `${base}/echo`,
      method: 'POST',
      body: 'ping',
      policy: open,
      label: 'Test URL',
      timeoutMs: 5000,
    });
    expect(await text(echoed.body)).toBe('ping');
    const slow = await requestChecked({ url: `${base}/slow-body`, policy: open, label: 'Test URL', timeoutMs: 300 });
    expect(slow.status).toBe(200);
    await expect(text(slow.body)).rejects.toThrow(OutboundTimeout);
  });

  it('refuses a private address without allowPrivate before connecting', async () => {
    await expect(
      requestChecked({ url: `${base}/end`, policy: { allowPrivate: false }, label: 'Test URL', timeoutMs: 5000 }),
    ).rejects.toThrow(/Test URL must use https/);
  });
});
