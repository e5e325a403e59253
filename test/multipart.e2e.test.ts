/**
 * Truncated and malformed multipart bodies, sent byte by byte over raw sockets to every upload
 * endpoint of the three surfaces (REST convert, merge, batch and an extraction tool, tRPC convert,
 * GraphQL). Whatever the body, the server stays up (/healthz answers after each), the answer (when
 * the client is still there for one) is a 400 with an error in the surface's format, and nothing
 * is left behind: no staged blob, no temporary or spool file.
 */
import { readdir } from 'node:fs/promises';
import { connect } from 'node:net';
import path from 'node:path';
import { PDFDocument } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { standardPlugins } from '../plugins/index.js';
import { startServer, type TestServer } from './helpers.js';

const BOUNDARY = 'transmute-test-boundary';

interface Part {
  name?: string;
  filename?: string;
  data: Buffer | string;
}

const field = (name: string, value: string): Part => ({ name, data: value });
const file = (name: string, filename: string, data: Buffer | string): Part => ({ name, filename, data });

function partHead(part: Part): string {
  const disposition = [
    'form-data',
    ...(part.name === undefined ? [] : [`name="${part.name}"`]),
    ...(part.filename === undefined ? [] : [`filename="${part.filename}"`]),
  ].join('; ');
  return (
    `--${BOUNDARY}\r\nContent-Disposition: ` +
    `${disposition}\r\n${part.filename === undefined ? '' : 'Content-Type: application/octet-stream\r\n'}\r\n`
  );
}

/** The body, and where the first file's bytes start (for cuts). */
function multipartBody(parts: Part[], { closing = true } = {}): { body: Buffer; fileHead: number; fileData: number } {
  const chunks: Buffer[] = [];
  let length = 0;
  let fileHead = -1;
  let fileData = -1;
  for (const part of parts) {
    const head = Buffer.from(partHead(part));
    if (part.filename !== undefined && fileHead < 0) {
      fileHead = length;
      fileData = length + head.length;
    }
    for (const chunk of [head, Buffer.from(part.data), Buffer.from('\r\n')]) {
      chunks.push(chunk);
      length += chunk.length;
    }
  }
  if (closing) chunks.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return { body: Buffer.concat(chunks), fileHead, fileData };
}

interface RawAnswer {
  status?: number;
  body?: any;
}

/**
 * One HTTP request written to a socket. `declaredLength`: the Content-Length sent (default: the
 * body's). `afterBody`: after the body, wait for the answer ('answer'), drop the connection ('close')
 * or half-close it and wait ('half-close').
 */
function rawRequest(
  url: string,
  {
    path: target,
    key,
    body,
    declaredLength = body.length,
    boundary = BOUNDARY,
    afterBody = 'answer',
  }: {
    path: string;
    key: string;
    body: Buffer;
    declaredLength?: number;
    boundary?: string;
    afterBody?: 'answer' | 'close' | 'half-close';
  },
): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    const received: Buffer[] = [];
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(parseAnswer(Buffer.concat(received)));
    };
    // A refusal comes at once; a loaded machine building GraphQL on its first request may take many seconds.
    const timer = setTimeout(done, 30_000);
    socket.on('data', (chunk) => {
      received.push(chunk);
      const answer = parseAnswer(Buffer.concat(received));
      if (answer.body !== undefined) done();
    });
    socket.on('error', () => {});
    socket.on('close', done);
    socket.write(
      `POST ${target} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: Bearer ${key}\r\n` +
        `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${declaredLength}\r\n\r\n`,
    );
    socket.write(body, () => {
      if (afterBody === 'close') setTimeout(done, 200);
      if (afterBody === 'half-close') socket.end();
    });
  });
}

/** Status and JSON body of a complete HTTP/1.1 answer; `body` unset until all of it is in. */
function parseAnswer(raw: Buffer): RawAnswer {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) return {};
  const head = raw.subarray(0, end).toString('latin1');
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]);
  const content = /\r\ntransfer-encoding: *chunked/i.test(head)
    ? dechunk(raw.subarray(end + 4))
    : framed(raw.subarray(end + 4), head);
  if (content === undefined) return { status };
  try {
    return { status, body: JSON.parse(content.toString('utf8')) };
  } catch {
    return { status, body: content.toString('utf8') };
  }
}

function framed(content: Buffer, head: string): Buffer | undefined {
  const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? NaN);
  return Number.isFinite(length) && content.length >= length ? content.subarray(0, length) : undefined;
}

function dechunk(content: Buffer): Buffer | undefined {
  const chunks: Buffer[] = [];
  for (let at = 0; ; ) {
    const line = content.indexOf('\r\n', at);
    if (line < 0) return undefined;
    const size = parseInt(content.subarray(at, line).toString('latin1'), 16);
    if (size === 0) return Buffer.concat(chunks);
    if (content.length < line + 2 + size + 2) return undefined;
    chunks.push(content.subarray(line + 2, line + 2 + size));
    at = line + 2 + size + 2;
  }
}

/** Every file DATA_DIR holds for requests: staged uploads, GraphQL's temporary files, any spool. */
async function leftovers(dataDir: string): Promise<string[]> {
  const found: string[] = [];
  for (const dir of ['blobs/uploads', 'tmp', 'spool']) {
    const entries = await readdir(path.join(dataDir, dir), { recursive: true, withFileTypes: true }).catch(() => []);
    found.push(
      ...entries
        .filter((entry) => !entry.isDirectory())
        .map((entry) => path.relative(dataDir, path.join(entry.parentPath, entry.name))),
    );
  }
  return found;
}

/** Files of a refused or dropped request go once the server has seen the end of it: later on a loaded machine. */
async function settledLeftovers(dataDir: string, timeoutMs = 15_000): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await leftovers(dataDir);
    if (found.length === 0 || Date.now() > deadline) return found;
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function pdf(pages: number): Promise<Buffer> {
  const doc = await PDFDocument.create();
  for (let i = 0; i < pages; i++) doc.addPage([200, 200]);
  return Buffer.from(await doc.save());
}

const csv = 'name,count\nalpha,1\nbeta,2\n';
/** Makes the first file long enough that a cut lands mid-stream, well after staging began. */
const FILLER = Buffer.alloc(512 * 1024, 'x');

interface Endpoint {
  path: string;
  /** A well-formed form (accepted), with the first file padded when `padded`. */
  parts(padded: boolean): Part[];
  /** The same form with a field or file sent twice where the endpoint takes one. */
  duplicated(): Part[];
  /** Whether an answer says the request was refused as malformed. */
  refused(answer: RawAnswer): boolean;
}

const restRefusal = (answer: RawAnswer) =>
  answer.status === 400 && typeof answer.body?.error === 'string' && answer.body.error.length > 0;
const trpcRefusal = (answer: RawAnswer) =>
  answer.status === 400 &&
  answer.body?.error?.data?.code === 'BAD_REQUEST' &&
  typeof answer.body.error.message === 'string';
const graphqlRefusal = (answer: RawAnswer) =>
  answer.status === 400 &&
  answer.body?.errors?.[0]?.extensions?.code === 'BAD_USER_INPUT' &&
  typeof answer.body.errors[0].message === 'string';

const pad = (data: Buffer | string, padded: boolean) => (padded ? Buffer.concat([Buffer.from(data), FILLER]) : data);

const CONVERT = 'mutation ($file: Upload!) { convert(file: $file, to: "json") { jobId status } }';

describe('truncated and malformed multipart bodies', () => {
  let server: TestServer;
  let key: string;
  let endpoints: Record<string, Endpoint>;

  beforeAll(async () => {
    server = await startServer({ plugins: standardPlugins });
    key = await server.createKey('business');
    const [two, three] = [await pdf(2), await pdf(3)];
    // The convert form (REST and tRPC alike), and GraphQL's operations and map for one file.
    const convert = {
      parts: (padded: boolean) => [field('to', 'json'), file('file', 'table.csv', pad(csv, padded))],
      duplicated: () => [field('to', 'json'), file('file', 'table.csv', csv), file('file', 'again.csv', csv)],
    };
    const graphqlHead = () => [
      field('operations', JSON.stringify({ query: CONVERT, variables: { file: null } })),
      field('map', JSON.stringify({ 0: ['variables.file'] })),
    ];
    endpoints = {
      'REST convert': { path: '/api/v1/convert', ...convert, refused: restRefusal },
      'REST merge': {
        path: '/api/pdf/merge',
        parts: (padded) => [file('files', 'two.pdf', pad(two, padded)), file('files', 'three.pdf', three)],
        duplicated: () => [
          file('files', 'two.pdf', two),
          file('files', 'three.pdf', three),
          field('order', 'a'),
          field('order', 'b'),
        ],
        refused: restRefusal,
      },
      'REST batch': {
        path: '/api/batch/convert',
        parts: (padded) => [field('to', 'json'), file('files', 'a.csv', pad(csv, padded)), file('files', 'b.csv', csv)],
        duplicated: () => [field('to', 'json'), field('to', 'xlsx'), file('files', 'a.csv', csv)],
        refused: restRefusal,
      },
      'REST pdf-to-markdown': {
        path: '/api/pdf-to-markdown',
        parts: (padded) => [file('files', 'two.pdf', pad(two, padded)), field('pageBreaks', 'false')],
        duplicated: () => [file('files', 'two.pdf', two), field('pageBreaks', 'false'), field('pageBreaks', 'true')],
        refused: restRefusal,
      },
      'tRPC convert': { path: '/trpc/convert', ...convert, refused: trpcRefusal },
      'GraphQL convert': {
        path: '/graphql',
        parts: (padded) => [...graphqlHead(), file('0', 'table.csv', pad(csv, padded))],
        duplicated: () => [...graphqlHead(), file('0', 'table.csv', csv), file('0', 'again.csv', csv)],
        refused: graphqlRefusal,
      },
    };
  });
  afterAll(() => server?.close());

  it(
    'a form refused before its files are read (plan gate) leaves nothing behind, temporary files ' + 'included',
    async () => {
      const free = await server.createKey('free');
      const files = [
        file('files', 'a.pdf', Buffer.concat([await pdf(1), FILLER])),
        file('files', 'b.pdf', await pdf(1)),
      ];
      const rest = await rawRequest(server.url, { path: '/api/pdf/merge', key: free, body: multipartBody(files).body });
      expect(rest.status).toBe(403);
      const trpc = await rawRequest(server.url, { path: '/trpc/merge', key: free, body: multipartBody(files).body });
      expect(trpc.body?.error?.data?.code).toBe('FORBIDDEN');
      // GraphQL reads the files into temporary files while the mutation runs: they go with the answer.
      const merge = 'mutation ($files: [Upload!]!) { mergePdf(files: $files) { jobId } }';
      const graphql = await rawRequest(server.url, {
        path: '/graphql',
        key: free,
        body: multipartBody([
          field('operations', JSON.stringify({ query: merge, variables: { files: [null, null] } })),
          field('map', JSON.stringify({ 0: ['variables.files.0'], 1: ['variables.files.1'] })),
          file('0', 'a.pdf', files[0]!.data),
          file('1', 'b.pdf', files[1]!.data),
        ]).body,
      });
      expect(graphql.body?.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
      expect(await settledLeftovers(server.dataDir)).toEqual([]);
    },
  );

  const ENDPOINTS = [
    'REST convert',
    'REST merge',
    'REST batch',
    'REST pdf-to-markdown',
    'tRPC convert',
    'GraphQL convert',
  ];

  /** Send, then check: the server answers /healthz, the answer (if any) is the surface's 400, nothing is left. */
  async function expectRefused(name: string, request: Parameters<typeof rawRequest>[1], answerExpected: boolean) {
    const answer = await rawRequest(server.url, request);
    if (answerExpected) expect(endpoints[name]!.refused(answer), `${name}: ${JSON.stringify(answer)}`).toBe(true);
    else if (answer.status !== undefined) expect(answer.status, JSON.stringify(answer)).toBe(400);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect(await settledLeftovers(server.dataDir)).toEqual([]);
  }

  for (const name of ENDPOINTS) {
    describe(name, () => {
      it('accepts the well-formed body (the forms below differ from it only where stated)', async () => {
        const { body } = multipartBody(endpoints[name]!.parts(false));
        const answer = await rawRequest(server.url, { path: endpoints[name]!.path, key, body });
        expect(answer.status, JSON.stringify(answer.body)).toBe(200);
        const failures = answer.body?.errors ?? answer.body?.error;
        expect(
          failures === undefined || (Array.isArray(failures) && failures.length === 0),
          JSON.stringify(answer.body),
        ).toBe(true);
        // Its jobs ran and took their uploads with them: the cases below start from nothing.
        expect(await settledLeftovers(server.dataDir, 60_000)).toEqual([]);
      });

      it('cut mid-file, then the connection drops', async () => {
        const { body, fileData } = multipartBody(endpoints[name]!.parts(true));
        await expectRefused(
          name,
          {
            path: endpoints[name]!.path,
            key,
            body: body.subarray(0, fileData + 256 * 1024),
            declaredLength: body.length,
            afterBody: 'close',
          },
          false,
        );
      });

      it('cut mid-file, then the client half-closes and waits', async () => {
        const { body, fileData } = multipartBody(endpoints[name]!.parts(true));
        await expectRefused(
          name,
          {
            path: endpoints[name]!.path,
            key,
            body: body.subarray(0, fileData + 256 * 1024),
            declaredLength: body.length,
            afterBody: 'half-close',
          },
          false,
        );
      });

      it('cut mid-file where the body ends (Content-Length says so)', async () => {
        const { body, fileData } = multipartBody(endpoints[name]!.parts(true));
        await expectRefused(
          name,
          { path: endpoints[name]!.path, key, body: body.subarray(0, fileData + 256 * 1024) },
          true,
        );
      });

      it('cut in the middle of a part header', async () => {
        const { body, fileHead } = multipartBody(endpoints[name]!.parts(false));
        await expectRefused(name, { path: endpoints[name]!.path, key, body: body.subarray(0, fileHead + 30) }, true);
      });

      it('no closing boundary', async () => {
        const { body } = multipartBody(endpoints[name]!.parts(false), { closing: false });
        await expectRefused(name, { path: endpoints[name]!.path, key, body }, true);
      });

      it('a boundary that is not the one the body uses', async () => {
        const { body } = multipartBody(endpoints[name]!.parts(false));
        await expectRefused(name, { path: endpoints[name]!.path, key, body, boundary: 'garbage-boundary' }, true);
      });

      it('a part with no name', async () => {
        const parts = endpoints[name]!.parts(false).map((part) =>
          part.filename === undefined ? part : { filename: part.filename, data: part.data },
        );
        await expectRefused(name, { path: endpoints[name]!.path, key, body: multipartBody(parts).body }, true);
      });

      it('a field named after a property every object has (__proto__)', async () => {
        const parts = [...endpoints[name]!.parts(false), field('__proto__', '{"polluted":true}')];
        await expectRefused(name, { path: endpoints[name]!.path, key, body: multipartBody(parts).body }, true);
      });

      it('a field or file sent twice where one is taken', async () => {
        await expectRefused(
          name,
          { path: endpoints[name]!.path, key, body: multipartBody(endpoints[name]!.duplicated()).body },
          true,
        );
      });
    });
  }
});
