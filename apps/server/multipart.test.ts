import { once } from 'node:events';
import { connect } from 'node:net';
import Fastify from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { multipartParts } from './multipart.js';

describe('multipartParts', () => {
  const apps: ReturnType<typeof Fastify>[] = [];
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((app) => app.close()));
  });

  it('fails, never waits, when the client went away before the body was read (a slow auth check)', async () => {
    let outcome: Promise<string> | undefined;
    let entered!: () => void;
    const handlerEntered = new Promise<void>((resolve) => (entered = resolve));
    const app = Fastify();
    apps.push(app);
    app.addContentTypeParser('multipart/form-data', (_request, _payload, done) => done(null));
    app.post('/upload', async (request) => {
      entered();
      // The handler reaches the body only after the client is gone, as behind a slow database.
      const socket = request.raw.socket;
      // Not once(): the socket's ECONNRESET 'error' comes first and would reject it.
      if (!socket.destroyed) await new Promise((resolve) => socket.once('close', resolve));
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
    // Gone once the route is under way (on a loaded machine the route may start long after the write).
    await handlerEntered;
    socket.destroy();
    await vi.waitUntil(() => outcome !== undefined, { timeout: 30_000, interval: 20 });
    // A reader that waits for a body that can no longer come never settles: 10 s tells that from a busy machine.
    const result = await Promise.race([outcome, new Promise((resolve) => setTimeout(() => resolve('hung'), 10_000))]);
    expect(result).toMatch(/the request ended before the multipart body/);
  });

  /** A server whose route reads one file with `idleMs`, pausing `holdMs` before it reads the file; its outcome. */
  async function idleReader(holdMs: number) {
    let settle!: (outcome: string) => void;
    const outcome = new Promise<string>((resolve) => (settle = resolve));
    const app = Fastify();
    apps.push(app);
    app.addContentTypeParser('multipart/form-data', (_request, _payload, done) => done(null));
    app.post('/upload', async (request) => {
      let bytes = 0;
      try {
        for await (const part of multipartParts(request, { maxFileBytes: 1 << 24, maxFiles: 1, idleMs: 500 })) {
          if (part.type !== 'file') continue;
          // A slow blob store: the reader holds the body back, and the client cannot send meanwhile.
          await new Promise((resolve) => setTimeout(resolve, holdMs));
          for await (const chunk of part.stream) bytes += (chunk as Buffer).length;
        }
        settle(`read ${bytes}`);
      } catch (error) {
        settle((error as Error).message);
      }
      return {};
    });
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    const socket = connect(Number(new URL(address).port), '127.0.0.1');
    socket.on('error', () => {});
    await once(socket, 'connect');
    return { socket, outcome };
  }

  const head = (boundary: string, declared: number) =>
    `POST /upload HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\n` +
    `Content-Length: ${declared}\r\n\r\n`;

  it('ends a body whose client sends nothing for idleMs, with a 408 error', async () => {
    const { socket, outcome } = await idleReader(0);
    const part = `--b\r\nContent-Disposition: form-data; name="file"; filename="a.bin"\r\n\r\n${'x'.repeat(1000)}`;
    socket.write(head('b', part.length + 1000) + part);
    const started = performance.now();
    try {
      expect(await outcome).toMatch(/No data of the request body arrived for 1 seconds: the upload was ended/);
      expect(performance.now() - started).toBeGreaterThanOrEqual(450);
    } finally {
      socket.destroy();
    }
  });

  it('does not count the time the reader itself holds the body back as the client idle', async () => {
    const { socket, outcome } = await idleReader(2000);
    const file = 'y'.repeat(8 << 20);
    const body = `--b\r\nContent-Disposition: form-data; name="file"; filename="a.bin"\r\n\r\n${file}\r\n--b--\r\n`;
    socket.write(head('b', body.length) + body);
    try {
      expect(await outcome).toBe(`read ${file.length}`);
    } finally {
      socket.destroy();
    }
  });
});
