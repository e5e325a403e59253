/** PLUGIN_LICENSES: an operator leaves copyleft plugins out, and every surface says so consistently. */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { getJson, startServer, submitConvert, type TestServer } from './helpers.js';

let server: TestServer;
let key: string;
beforeAll(async () => {
  server = await startServer({ env: { PLUGIN_LICENSES: 'no-strong-copyleft' } });
  key = await server.createKey('pro');
});
afterAll(() => server?.close());

it('runs without GPL and AGPL plugins, listing licences per operation', async () => {
  const { body } = await getJson(`${server.url}/api/v1/formats`, key);
  const ids = body.operations.map((o: { pluginId: string }) => o.pluginId);
  expect(ids).toContain('image-convert');
  expect(ids).not.toContain('video-convert');
  expect(ids).not.toContain('compress-pdf');
  for (const op of body.operations) expect(op.licenses.join(' ')).not.toMatch(/(^|\s)A?GPL-/);
  expect(body.operations.find((o: { pluginId: string }) => o.pluginId === 'image-convert').licenses).toContain(
    'LGPL-3.0-or-later',
  );

  const mp3 = await submitConvert(
    server.url,
    key,
    { name: 'a.wav', data: Buffer.from('RIFF\0\0\0\0WAVEfmt ') },
    { to: 'mp3' },
  );
  expect(mp3.status).toBe(400);
  expect(mp3.body.error).toMatch(/Unsupported conversion/);
});
