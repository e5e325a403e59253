/**
 * Uploads bounded in time, over raw sockets to a real server with short limits (UPLOAD_IDLE_S=2, UPLOAD_MAX_S=6):
 * a body that stops sending is ended after the idle timeout, one trickling past the deadline is refused with 408,
 * each with its staged files deleted at once and the server still answering; a normal upload, a `Prefer: wait` job
 * longer than both limits and an idle keep-alive connection are not affected.
 */
import { readdir } from 'node:fs/promises';
import http from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { PDFDocument } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SLOW_TEXT_PLUGIN, authHeaders, startServer, type TestServer } from './helpers.js';

const IDLE_S = 2;
const MAX_S = 6;
const BOUNDARY = 'transmute-upload-time';

/** What the JSON pipelines import by URL (from `origin`, on 127.0.0.1). */
const IMPORTED_TEXT = 'a slow json body is fine';

let server: TestServer;
let key: string;
let origin: http.Server;
let originUrl: string;

beforeAll(async () => {
  origin = http.createServer((request, response) => {
    response.writeHead(200, { 'content-type': 'text/plain', 'content-length': Buffer.byteLength(IMPORTED_TEXT) });
    response.end(request.method === 'HEAD' ? undefined : IMPORTED_TEXT);
  });
  await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
  originUrl = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
  server = await startServer({
    env: {
      PLUGINS: SLOW_TEXT_PLUGIN,
      UPLOAD_IDLE_S: String(IDLE_S),
      UPLOAD_MAX_S: String(MAX_S),
      IMPORT_ALLOW_PRIVATE: '1',
    },
  });
  key = await server.createKey('pro');
}, 120_000);
afterAll(async () => {
  await server?.close();
  origin?.close();
});

const filePart = (field: string, filename: string) =>
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${field}"; filename="${filename}"\r\n` +
  'Content-Type: application/octet-stream\r\n\r\n';
const fieldPart = (name: string, value: string) =>
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;

interface Answer {
  status?: number;
  body?: any;
  /** The server closed the connection. */
  closed: boolean;
  /** Milliseconds from the first byte sent to the answer (or the close). */
  afterMs: number;
  /** Everything the server sent. */
  raw: string;
}

interface RequestHead {
  apiKey?: string;
  contentType?: string;
  /** Further header lines, e.g. `Prefer: wait=40`. */
  headers?: Record<string, string>;
}

/** A raw HTTP/1.1 request whose head (and declared length) is sent at once; the body is the caller's to write. */
function openUpload(
  target: string,
  declaredLength: number,
  { apiKey = key, contentType = `multipart/form-data; boundary=${BOUNDARY}`, headers = {} }: RequestHead = {},
): { socket: Socket; answer: Promise<Answer> } {
  const { hostname, port } = new URL(server.url);
  const socket = connect(Number(port), hostname);
  const started = performance.now();
  const answer = new Promise<Answer>((resolve) => {
    const received: Buffer[] = [];
    const timer = setTimeout(() => finish(false), 60_000);
    const finish = (closed: boolean) => {
      clearTimeout(timer);
      const raw = Buffer.concat(received).toString('utf8');
      const end = raw.indexOf('\r\n\r\n');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1]);
      const content = /\r\ntransfer-encoding: *chunked/i.test(raw.slice(0, end))
        ? dechunk(raw.slice(end + 4))
        : raw.slice(end + 4);
      let body: unknown;
      try {
        body = end >= 0 ? JSON.parse(content) : undefined;
      } catch {
        body = content;
      }
      resolve({
        status: Number.isFinite(status) ? status : undefined,
        body,
        closed,
        afterMs: performance.now() - started,
        raw,
      });
      socket.destroy();
    };
    socket.on('data', (chunk) => received.push(chunk));
    socket.on('error', () => {});
    socket.on('close', () => finish(true));
  });
  socket.write(
    `POST ${target} HTTP/1.1\r\nHost: ${hostname}:${port}\r\n${Object.entries({ ...authHeaders(apiKey), ...headers })
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('')}Content-Type: ${contentType}\r\nContent-Length: ${declaredLength}\r\n\r\n`,
  );
  return { socket, answer };
}

/** A chunked body's content (tRPC streams its answers). */
function dechunk(content: string): string {
  let out = '';
  for (let at = 0; ; ) {
    const line = content.indexOf('\r\n', at);
    const size = line < 0 ? 0 : parseInt(content.slice(at, line), 16);
    if (!size) return out;
    out += content.slice(line + 2, line + 2 + size);
    at = line + 2 + size + 2;
  }
}

/** Staged uploads and request temporary files under DATA_DIR. */
async function leftovers(): Promise<string[]> {
  const found: string[] = [];
  for (const dir of ['blobs/uploads', 'tmp']) {
    const entries = await readdir(path.join(server.dataDir, dir), { recursive: true, withFileTypes: true }).catch(
      () => [],
    );
    found.push(...entries.filter((entry) => !entry.isDirectory()).map((entry) => entry.name));
  }
  return found;
}

/** Leftovers once the server has finished with the ended request (it deletes them at once; a loaded machine lags). */
async function settledLeftovers(): Promise<string[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const found = await leftovers();
    if (!found.length || Date.now() > deadline) return found;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function healthy() {
  const res = await fetch(`${server.url}/healthz`);
  expect(res.status).toBe(200);
}

async function pdf(pages: number): Promise<Buffer> {
  const doc = await PDFDocument.create();
  for (let i = 0; i < pages; i++) doc.addPage([200, 200]);
  return Buffer.from(await doc.save());
}

describe('a body that stops sending', () => {
  it('is ended after UPLOAD_IDLE_S with a 408, its first file (staged already) deleted at once', async () => {
    // A merge whose first PDF arrived whole (staged) and whose second stops mid-file.
    const first = await pdf(2);
    const head = Buffer.concat([
      Buffer.from(filePart('files', 'one.pdf')),
      first,
      Buffer.from(`\r\n${filePart('files', 'two.pdf')}`),
      (await pdf(3)).subarray(0, 200),
    ]);
    const { socket, answer } = openUpload('/api/pdf/merge', head.length + 100_000);
    socket.write(head);
    // The first file is staged while the body is still open.
    const deadline = Date.now() + 10_000;
    while (!(await leftovers()).length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect((await leftovers()).length).toBeGreaterThan(0);

    const ended = await answer;
    expect(ended.status).toBe(408);
    expect(ended.body.error).toMatch(new RegExp(`No data of the request body arrived for ${IDLE_S} seconds`));
    expect(ended.closed).toBe(true);
    expect(ended.afterMs).toBeGreaterThanOrEqual(IDLE_S * 1000 - 100);
    expect(await settledLeftovers()).toEqual([]);
    await healthy();
  }, 60_000);

  it('is ended the same way when it stops in its first file, and the server keeps answering', async () => {
    const head = Buffer.from(`${fieldPart('to', 'md')}${filePart('file', 'notes.txt')}hello, `);
    const { socket, answer } = openUpload('/api/v1/convert', head.length + 50_000);
    socket.write(head);
    const ended = await answer;
    expect(ended.status).toBe(408);
    expect(ended.body).toEqual({ error: expect.stringMatching(/the upload was ended/) });
    expect(ended.closed).toBe(true);
    expect(await settledLeftovers()).toEqual([]);
    await healthy();
  }, 60_000);

  it('is ended on tRPC and GraphQL too, each answering 408 in its own format', async () => {
    const trpc = openUpload(
      '/trpc/convert',
      Buffer.byteLength(`${fieldPart('to', 'md')}${filePart('file', 'notes.txt')}hello`) + 50_000,
    );
    trpc.socket.write(`${fieldPart('to', 'md')}${filePart('file', 'notes.txt')}hello`);
    const operations = JSON.stringify({
      query: 'mutation ($file: Upload!) { convert(file: $file, to: "md") { jobId status } }',
      variables: { file: null },
    });
    const graphqlHead =
      `${fieldPart('operations', operations)}${fieldPart('map', JSON.stringify({ 0: ['variables.file'] }))}` +
      `${filePart('0', 'notes.txt')}hello`;
    const graphql = openUpload('/graphql', Buffer.byteLength(graphqlHead) + 50_000);
    graphql.socket.write(graphqlHead);
    const [trpcEnded, graphqlEnded] = await Promise.all([trpc.answer, graphql.answer]);
    expect(trpcEnded.status).toBe(408);
    // Ended by the idle timeout, and closed at once: not left open until the deadline.
    expect(trpcEnded.afterMs).toBeLessThan(MAX_S * 1000);
    expect(trpcEnded.body.error).toMatchObject({
      message: expect.stringMatching(/the upload was ended/),
      data: { code: 'TIMEOUT' },
    });
    expect(graphqlEnded.status).toBe(408);
    expect(graphqlEnded.body.errors[0]).toMatchObject({
      message: expect.stringMatching(/the upload was ended/),
      extensions: { code: 'REQUEST_TIMEOUT' },
    });
    expect(trpcEnded.closed && graphqlEnded.closed).toBe(true);
    expect(await settledLeftovers()).toEqual([]);
    await healthy();
  }, 60_000);
});

describe('a JSON body (REST, GraphQL, tRPC): the same idle limit', () => {
  const json = { contentType: 'application/json' };
  const pipeline = (steps: number) =>
    JSON.stringify({ input: { url: `${originUrl}/notes.txt` }, steps: [{ to: 'md', steps }] });
  const idleMessage = new RegExp(
    `^No data of the request body arrived for ${IDLE_S} seconds: the request was ended; send it again$`,
  );

  const usedCredits = async () => {
    const res = await fetch(`${server.url}/api/v1/credits`, { headers: authHeaders(key) });
    return ((await res.json()) as { creditsUsed: number }).creditsUsed;
  };

  /** Writes `body` in `pieces` parts `gapMs` apart: never idle for UPLOAD_IDLE_S, yet longer than it in all. */
  async function trickle(socket: Socket, body: string, pieces: number, gapMs: number) {
    const size = Math.ceil(body.length / pieces);
    for (let at = 0; at < body.length; at += size) {
      if (at) await sleep(gapMs);
      socket.write(body.slice(at, at + size));
    }
  }

  it("that stops sending is ended after UPLOAD_IDLE_S with a 408 in each surface's format", async () => {
    const creditsUsed = await usedCredits();
    const rest = pipeline(1);
    const restRequest = openUpload('/api/v1/pipelines', Buffer.byteLength(rest), json);
    restRequest.socket.write(rest.slice(0, 30));
    const query = JSON.stringify({ query: '{ __typename }' });
    const graphqlRequest = openUpload('/graphql', Buffer.byteLength(query), json);
    graphqlRequest.socket.write(query.slice(0, 10));
    const trpcRequest = openUpload('/trpc/pipelines.create', Buffer.byteLength(rest), json);
    trpcRequest.socket.write(rest.slice(0, 1));
    // A batch that sends nothing of its body.
    const batch = `{"0":${rest}}`;
    const batchRequest = openUpload('/trpc/pipelines.create?batch=1', Buffer.byteLength(batch), json);

    const [restEnded, graphqlEnded, trpcEnded, batchEnded] = await Promise.all([
      restRequest.answer,
      graphqlRequest.answer,
      trpcRequest.answer,
      batchRequest.answer,
    ]);
    for (const ended of [restEnded, graphqlEnded, trpcEnded, batchEnded]) {
      expect(ended.status, ended.raw).toBe(408);
      expect(ended.closed).toBe(true);
      // Ended by the idle limit, not left open until UPLOAD_MAX_S's deadline.
      expect(ended.afterMs).toBeGreaterThanOrEqual(IDLE_S * 1000 - 100);
      expect(ended.afterMs).toBeLessThan(MAX_S * 1000);
    }
    expect(restEnded.body).toEqual({ error: expect.stringMatching(idleMessage) });
    expect(graphqlEnded.body).toEqual({
      errors: [{ message: expect.stringMatching(idleMessage), extensions: { code: 'REQUEST_TIMEOUT' } }],
    });
    expect(trpcEnded.body.error).toMatchObject({
      message: expect.stringMatching(idleMessage),
      data: { code: 'TIMEOUT', httpStatus: 408, path: 'pipelines.create' },
    });
    expect(batchEnded.body).toEqual([
      {
        error: expect.objectContaining({
          message: expect.stringMatching(idleMessage),
          data: expect.objectContaining({ code: 'TIMEOUT', httpStatus: 408 }),
        }),
      },
    ]);
    // Nothing was accepted (nothing charged), and the server answers the next request.
    expect(await usedCredits()).toBe(creditsUsed);
    await healthy();
  }, 60_000);

  it('sent slowly, each pause under the limit, is answered; a Prefer: wait pipeline past both limits too', async () => {
    const close = { Connection: 'close' };
    // 9 s of work after a body taking 3 s in five parts: Prefer: wait keeps the answer past UPLOAD_MAX_S.
    const rest = pipeline(90);
    const restRequest = openUpload('/api/v1/pipelines', Buffer.byteLength(rest), {
      ...json,
      headers: { ...close, Prefer: 'wait=40' },
    });
    const query = JSON.stringify({ query: '{ __typename }' });
    const graphqlRequest = openUpload('/graphql', Buffer.byteLength(query), { ...json, headers: close });
    const submit = pipeline(1);
    const trpcRequest = openUpload('/trpc/pipelines.create', Buffer.byteLength(submit), { ...json, headers: close });
    const gapMs = 750;
    await Promise.all([
      trickle(restRequest.socket, rest, 5, gapMs),
      trickle(graphqlRequest.socket, query, 4, gapMs),
      trickle(trpcRequest.socket, submit, 4, gapMs),
    ]);

    const graphqlAnswer = await graphqlRequest.answer;
    expect(graphqlAnswer.status, graphqlAnswer.raw).toBe(200);
    expect(graphqlAnswer.afterMs).toBeGreaterThan(IDLE_S * 1000);
    expect(graphqlAnswer.body).toEqual({ data: { __typename: 'Query' } });

    const trpcAnswer = await trpcRequest.answer;
    expect(trpcAnswer.status, trpcAnswer.raw).toBe(200);
    expect(trpcAnswer.body.result.data).toMatchObject({ jobId: expect.any(String) });

    const restAnswer = await restRequest.answer;
    expect(restAnswer.status, restAnswer.raw).toBe(200);
    expect(restAnswer.raw).toMatch(/\r\npreference-applied: wait=40\r\n/i);
    expect(restAnswer.afterMs).toBeGreaterThan(MAX_S * 1000);
    expect(restAnswer.body.status).toBe('done');
    const output = await fetch(restAnswer.body.downloadUrl);
    expect(await output.text()).toBe(`# Converted\n\n${IMPORTED_TEXT.toUpperCase()}\n`);
    await healthy();
  }, 90_000);
});

describe('a body that trickles (never idle) past UPLOAD_MAX_S', () => {
  it('is refused with a 408 naming the limit, nothing of it kept', async () => {
    const head = Buffer.from(`${fieldPart('to', 'md')}${filePart('file', 'slow.txt')}`);
    const { socket, answer } = openUpload('/api/v1/convert', head.length + 100_000);
    socket.write(head);
    // A byte every 300 ms: far from idle, far from whole.
    const trickle = setInterval(() => socket.writable && socket.write('a'), 300);
    try {
      const ended = await answer;
      expect(ended.status).toBe(408);
      expect(ended.body).toEqual({ error: expect.stringMatching(new RegExp(`within ${MAX_S} seconds`)) });
      expect(ended.closed).toBe(true);
      expect(ended.afterMs).toBeGreaterThanOrEqual(MAX_S * 1000 - 100);
    } finally {
      clearInterval(trickle);
    }
    expect(await settledLeftovers()).toEqual([]);
    await healthy();
  }, 60_000);

  it('ends a connection answered before its body was whole (a refusal) without a second answer', async () => {
    const { socket, answer } = openUpload('/api/v1/convert', 1000, { apiKey: 'not-a-key' });
    socket.write(`${fieldPart('to', 'md')}${filePart('file', 'slow.txt')}`);
    const trickle = setInterval(() => socket.writable && socket.write('a'), 300);
    try {
      const ended = await answer;
      expect(ended.status).toBe(401);
      expect(ended.raw.match(/HTTP\/1\.1 /g)).toHaveLength(1);
      expect(ended.closed).toBe(true);
    } finally {
      clearInterval(trickle);
    }
    await healthy();
  }, 60_000);
});

describe('what the limits leave alone', () => {
  it('a normal upload, and a Prefer: wait job running longer than both limits, answered with its output', async () => {
    const form = new FormData();
    form.append('to', 'md');
    // 9 s of work: the socket is idle past UPLOAD_IDLE_S and open past UPLOAD_MAX_S while the answer waits.
    form.append('steps', '90');
    form.append('file', new Blob(['waiting is fine']), 'wait.txt');
    const started = performance.now();
    const res = await fetch(`${server.url}/api/v1/convert`, {
      method: 'POST',
      body: form,
      headers: { ...authHeaders(key), Prefer: 'wait=40' },
    });
    const body = (await res.json()) as { status: string; downloadUrl: string };
    expect(performance.now() - started).toBeGreaterThan(MAX_S * 1000);
    expect(res.status).toBe(200);
    expect(res.headers.get('preference-applied')).toBe('wait=40');
    expect(body.status).toBe('done');
    const output = await fetch(body.downloadUrl);
    expect(await output.text()).toBe('# Converted\n\nWAITING IS FINE\n');
  }, 90_000);

  it('an idle keep-alive connection: a second request after both limits is answered on it', async () => {
    const { hostname, port } = new URL(server.url);
    const socket = connect(Number(port), hostname);
    const answers: string[] = [];
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk.toString('utf8');
      for (let end = received.indexOf('{"status":"ok"}'); end >= 0; end = received.indexOf('{"status":"ok"}')) {
        answers.push(received.slice(0, end + 15));
        received = received.slice(end + 15);
      }
    });
    let closed = false;
    socket.on('close', () => (closed = true));
    const get = async (count: number) => {
      socket.write(`GET /healthz HTTP/1.1\r\nHost: ${hostname}:${port}\r\n\r\n`);
      const deadline = Date.now() + 10_000;
      while (answers.length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    };
    try {
      await get(1);
      await new Promise((r) => setTimeout(r, (MAX_S + 1) * 1000));
      expect(closed).toBe(false);
      await get(2);
      expect(answers).toHaveLength(2);
      expect(answers[1]).toMatch(/^HTTP\/1\.1 200 /);
    } finally {
      socket.destroy();
    }
  }, 60_000);
});
