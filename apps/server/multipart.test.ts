import { once } from 'node:events';
import { connect } from 'node:net';
import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { multipartParts } from './multipart.js';

describe('multipartParts', () => {
  const apps: ReturnType<typeof Fastify>[] = [];
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((app) => app.close()));
  });

  it('fails, never waits, when the client went away before the body was read (a slow auth check)', async () => {
    let outcome: Promise<string> | undefined;
    const app = Fastify();
    apps.push(app);
    app.addContentTypeParser('multipart/form-data', (_request, _payload, done) => done(null));
    app.post('/upload', async (request) => {
      // The handler reaches the body only after the client is gone, as behind a slow database.
      await new Promise((resolve) => setTimeout(resolve, 300));
      outcome = (async () => {
        for await (const part of multipartParts(request, { maxFileBytes: 1 << 20, maxFiles: 1 })) {
          if (part.type === 'file') for await (const _ of part.stream);
        }
        return 'finished';
      })().catch((error: Error) => error.message);
      await outcome;
      return {};
    });
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    const boundary = 'cut';
    const body =
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; ` + `filename="a.bin"\r\n\r\n${'x'.repeat(2000)}`;
    const socket = connect(Number(new URL(address).port), '127.0.0.1');
    await once(socket, 'connect');
    socket.write(
      `POST /upload HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\n` +
        `Content-Length: ${body.length + 500}\r\n\r\n${body}`,
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    socket.destroy();
    for (let i = 0; i < 50 && !outcome; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    const result = await Promise.race([outcome, new Promise((resolve) => setTimeout(() => resolve('hung'), 2000))]);
    expect(result).toMatch(/the request ended before the multipart body/);
  });
});
