/**
 * REST, GraphQL and tRPC side by side: one server, the same services. The same conversion gives
 * the same job and the same bytes on every surface; keys, ownership, plans and limits hold on
 * every surface; a plugin added to the registry shows up on every surface and in OpenAPI.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { TRPCClientError } from '@trpc/client';
import { TRPCError } from '@trpc/server';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  SPEC_EXTRACTION_TOOLS,
  fileSearchRowSchema,
  formatsSchema,
  pdfToMarkdownRowSchema,
  type JobStatus,
} from '../schema/index.js';
import { createTransmuteClient, type TransmuteClient } from '../apps/server/trpc/client.js';
import { createTrpcContext } from '../apps/server/trpc/context.js';
import { createCaller } from '../apps/server/trpc/router.js';
import {
  ROOT,
  SLOW_TEXT_PLUGIN,
  authHeaders,
  download,
  getJson,
  startServer,
  submitConvert,
  waitForJob,
  type TestServer,
  withinOneRateWindow,
} from './helpers.js';

interface GraphQLAnswer {
  status: number;
  body: { data?: Record<string, any> | null; errors?: Array<{ message: string; extensions?: { code?: string } }> };
}

async function graphql(
  url: string,
  key: string | undefined,
  query: string,
  variables: Record<string, unknown> = {},
): Promise<GraphQLAnswer> {
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...authHeaders(key) },
    body: JSON.stringify({ query, variables }),
  });
  return { status: res.status, body: await res.json() };
}

const CONVERT =
  `mutation Convert($file: Upload!, $to: String!, $op: String, $options: ConvertOptions) {
  convert(file: $file, to: $to, op: $op, options: $options) { jobId status progress creditCost creditsRemaining ` +
  `downloadUrl expiresIn toolReport { op detected } error }
}`;
const JOB_FIELDS =
  'jobId status progress creditCost creditsRemaining downloadUrl expiresIn toolReport { op detected } error';

type TestFile = { name: string; data: Buffer | string };

const blobOf = (file: TestFile) => new Blob([typeof file.data === 'string' ? file.data : new Uint8Array(file.data)]);

/**
 * An operation by the GraphQL multipart request spec: `uploads` maps variable paths
 * (e.g. "file", "files.0") to files.
 */
async function graphqlMultipart(
  url: string,
  key: string | undefined,
  query: string,
  variables: Record<string, unknown>,
  uploads: Array<[path: string, file: TestFile]>,
): Promise<GraphQLAnswer> {
  const form = new FormData();
  form.append('operations', JSON.stringify({ query, variables }));
  form.append('map', JSON.stringify(Object.fromEntries(uploads.map(([path], i) => [i, [`variables.${path}`]]))));
  for (const [i, [, file]] of uploads.entries()) form.append(String(i), blobOf(file), file.name);
  const res = await fetch(`${url}/graphql`, { method: 'POST', body: form, headers: authHeaders(key) });
  return { status: res.status, body: await res.json() };
}

/** A convert mutation with its one file. */
function graphqlConvert(
  url: string,
  key: string | undefined,
  file: TestFile,
  variables: { to: string; op?: string; options?: Record<string, unknown> },
): Promise<GraphQLAnswer> {
  return graphqlMultipart(url, key, CONVERT, { ...variables, file: null }, [['file', file]]);
}

/** A mutation taking `files: [Upload!]!`, with those files. */
function graphqlFiles(
  url: string,
  key: string | undefined,
  query: string,
  files: TestFile[],
  variables: Record<string, unknown> = {},
): Promise<GraphQLAnswer> {
  return graphqlMultipart(
    url,
    key,
    query,
    { ...variables, files: files.map(() => null) },
    files.map((file, i) => [`files.${i}`, file]),
  );
}

const MERGE_PDF =
  'mutation Merge($files: [Upload!]!) { mergePdf(files: $files) { jobId status creditCost creditsRemaining } }';
const BATCH_CONVERT = `mutation Batch($files: [Upload!]!, $to: String!, $op: String, $quality: Int) {
  batchConvert(files: $files, to: $to, op: $op, quality: $quality) { batchId total errors { filename error } }
}`;

async function graphqlWaitForJob(url: string, key: string, jobId: string): Promise<Record<string, unknown>> {
  for (;;) {
    const { body } = await graphql(url, key, `query Job($id: ID!) { job(id: $id) { ${JOB_FIELDS} } }`, { id: jobId });
    const job = body.data?.job;
    if (!job) throw new Error(`job query failed: ${JSON.stringify(body.errors)}`);
    if (job.status === 'done' || job.status === 'failed') return job;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Events of a GraphQL-over-SSE response, read to its end. */
async function graphqlSubscribe(url: string, key: string, query: string, variables: Record<string, unknown>) {
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...authHeaders(key) },
    body: JSON.stringify({ query, variables }),
  });
  const text = await res.text();
  const events = text
    .split('\n\n')
    .map((block) => ({
      event: /^event: (.*)$/m.exec(block)?.[1],
      data: /^data: (.*)$/m.exec(block)?.[1],
    }))
    .filter((e) => e.event);
  return { status: res.status, contentType: res.headers.get('content-type'), events };
}

function convertForm(file: TestFile, fields: Record<string, string>): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  form.append('file', blobOf(file), file.name);
  return form;
}

/** A tRPC form with the files as repeated `files`. */
function filesForm(files: TestFile[], fields: Record<string, string> = {}): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  for (const file of files) form.append('files', blobOf(file), file.name);
  return form;
}

async function pdfWithPages(name: string, pages: number): Promise<TestFile> {
  const pdf = await PDFDocument.create();
  for (let i = 0; i < pages; i++) pdf.addPage([200, 200]);
  return { name, data: Buffer.from(await pdf.save()) };
}

/**
 * A one-page PDF with a bold heading and a line of text (the PDF -> Markdown engine reads the heading as `# heading`).
 */
async function pdfWith(name: string, heading: string, body: string): Promise<TestFile> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([595, 842]);
  page.drawText(heading, { font: await doc.embedFont(StandardFonts.HelveticaBold), size: 24, x: 72, y: 760 });
  page.drawText(body, { font: await doc.embedFont(StandardFonts.Helvetica), size: 11, x: 72, y: 720 });
  return { name, data: Buffer.from(await doc.save()) };
}

const png = async (name: string, background: string): Promise<TestFile> => ({
  name,
  data: await sharp({ create: { width: 40, height: 30, channels: 3, background } })
    .png()
    .toBuffer(),
});

/** Past the Free plan's 25 MB: answered FORBIDDEN rather than PAYLOAD_TOO_LARGE only if it is never read. */
const overFreeLimit = (name: string): TestFile => ({ name, data: Buffer.alloc(25_000_001 + 1024, 'a') });

async function poll<T>(read: () => Promise<T>, until: (value: T) => boolean): Promise<T> {
  for (;;) {
    const value = await read();
    if (until(value)) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The entries of a batch ZIP (name -> bytes), fetched from its downloadUrl with the key. */
async function zipEntries(downloadUrl: string, key: string): Promise<Map<string, Buffer>> {
  const res = await fetch(downloadUrl, { headers: authHeaders(key) });
  expect(res.status).toBe(200);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'transmute-zip-'));
  try {
    const file = path.join(dir, 'batch.zip');
    await writeFile(file, Buffer.from(await res.arrayBuffer()));
    const names = execFileSync('unzip', ['-Z1', file], { encoding: 'utf8' }).trim().split('\n').sort();
    return new Map(names.map((name) => [name, execFileSync('unzip', ['-p', file, name])]));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function trpcFailure(
  call: Promise<unknown>,
): Promise<{ code: string | undefined; httpStatus: number | undefined; message: string; reason?: string }> {
  try {
    await call;
  } catch (error) {
    if (error instanceof TRPCClientError)
      return {
        code: error.data?.code,
        httpStatus: error.data?.httpStatus,
        message: error.message,
        ...(error.data?.reason ? { reason: error.data.reason } : {}),
      };
    if (error instanceof TRPCError) return { code: error.code, httpStatus: undefined, message: error.message };
    throw error;
  }
  throw new Error('expected the call to fail');
}

describe('REST, GraphQL and tRPC over the same services', () => {
  let server: TestServer;
  let key: string;
  let trpc: TransmuteClient;
  const text = { name: 'notes.txt', data: 'hello surfaces' };

  beforeAll(async () => {
    server = await startServer({ env: { PLUGINS: SLOW_TEXT_PLUGIN } });
    key = await server.createKey('pro');
    trpc = createTransmuteClient(server.url, key);
  });
  afterAll(() => server.close());

  describe('parity', () => {
    const cases = [
      {
        name: 'slow text to Markdown (test plugin)',
        file: () => text,
        to: 'md',
        plugin: 'testSlowText',
        options: { steps: 2 },
      },
      {
        name: 'PNG to WEBP (sharp)',
        file: async () => ({
          name: 'red.png',
          data: await sharp({ create: { width: 64, height: 48, channels: 3, background: '#c03030' } })
            .png()
            .toBuffer(),
        }),
        to: 'webp',
        plugin: 'imageConvert',
        options: { quality: 60 },
      },
    ];
    for (const { name, file: makeFile, to, plugin, options } of cases) {
      it(`${name}: same job fields and same output on all three`, async () => {
        const file = await makeFile();
        const rest = await submitConvert(server.url, key, file, {
          to,
          ...Object.fromEntries(Object.entries(options).map(([k, v]) => [k, String(v)])),
        });
        const gql = await graphqlConvert(server.url, key, file, { to, options: { [plugin]: options } });
        const viaTrpc = await trpc.convert.mutate(convertForm(file, { to, options: JSON.stringify(options) }));

        expect(rest.status).toBe(200);
        const restAccepted = rest.body;
        const gqlAccepted = gql.body.data!.convert;
        expect(restAccepted).toEqual({
          jobId: expect.any(String),
          status: 'queued',
          creditCost: expect.any(Number),
          creditsRemaining: expect.any(Number),
          statusUrl: `/api/v1/jobs/${restAccepted.jobId}`,
        });
        expect(viaTrpc).toEqual({
          ...restAccepted,
          jobId: viaTrpc.jobId,
          statusUrl: `/api/v1/jobs/${viaTrpc.jobId}`,
          creditsRemaining: restAccepted.creditsRemaining - 2 * restAccepted.creditCost,
        });
        expect(gqlAccepted).toEqual({
          jobId: gqlAccepted.jobId,
          status: 'queued',
          creditCost: restAccepted.creditCost,
          creditsRemaining: restAccepted.creditsRemaining - restAccepted.creditCost,
          progress: null,
          downloadUrl: null,
          expiresIn: null,
          toolReport: null,
          error: null,
        });

        const restDone = await waitForJob(server.url, key, restAccepted.jobId);
        const gqlDone = await graphqlWaitForJob(server.url, key, gqlAccepted.jobId);
        let trpcDone: JobStatus = await trpc.jobs.get.query({ jobId: viaTrpc.jobId });
        while (trpcDone.status !== 'done' && trpcDone.status !== 'failed') {
          await new Promise((r) => setTimeout(r, 100));
          trpcDone = await trpc.jobs.get.query({ jobId: viaTrpc.jobId });
        }

        const link = expect.stringMatching(new RegExp(`^${server.url}/api/download/[A-Za-z0-9_-]{43}$`));
        expect(restDone).toEqual({ status: 'done', downloadUrl: link, expiresIn: 900 });
        expect(trpcDone).toEqual({ status: 'done', downloadUrl: link, expiresIn: 900 });
        expect(gqlDone).toEqual({
          jobId: gqlAccepted.jobId,
          status: 'done',
          downloadUrl: link,
          expiresIn: 900,
          progress: null,
          creditCost: null,
          creditsRemaining: null,
          toolReport: null,
          error: null,
        });

        const outputs = await Promise.all(
          [restDone.downloadUrl!, gqlDone.downloadUrl as string, trpcDone.downloadUrl!].map(download),
        );
        expect(outputs.map((o) => o.status)).toEqual([200, 200, 200]);
        expect(outputs[1]!.data.equals(outputs[0]!.data)).toBe(true);
        expect(outputs[2]!.data.equals(outputs[0]!.data)).toBe(true);
        expect(new Set(outputs.map((o) => o.headers.get('content-disposition'))).size).toBe(1);
        if (to === 'webp') expect((await sharp(outputs[0]!.data).metadata()).format).toBe('webp');
        else expect(outputs[0]!.data.toString()).toBe('# Converted\n\nHELLO SURFACES\n');

        const history = await trpc.history.list.query({ limit: 3 });
        expect(history.history.map((h) => h.jobId)).toEqual([viaTrpc.jobId, gqlAccepted.jobId, restAccepted.jobId]);
        expect(history.history.every((h) => h.viaApi)).toBe(true);
        const gqlHistory = await graphql(
          server.url,
          key,
          '{ history(limit: 3) { total limit offset hasMore history { time conv jobId viaApi } } }',
        );
        expect(gqlHistory.body.data!.history).toEqual(history);
      });
    }

    it('decodes a JSON operation input with the same rule and words everywhere (history limit)', async () => {
      const rest = await getJson(`${server.url}/api/v1/history?limit=0`, key);
      expect(rest.status).toBe(400);
      const message = (rest.body as { error: string }).error;
      expect(message).toMatch(/^Invalid limit/);
      const gql = await graphql(server.url, key, '{ history(limit: 0) { total } }');
      expect(gql.body.errors?.[0]).toMatchObject({ message, extensions: { code: 'BAD_USER_INPUT' } });
    });

    it('answers credits the same way everywhere', async () => {
      const rest = await getJson(`${server.url}/api/v1/credits`, key);
      const gql = await graphql(
        server.url,
        key,
        '{ credits { plan creditsIncluded creditsUsed creditsRemaining resetDate overageEnabled overageRatePer1000 ' +
          'overageCredits } }',
      );
      expect(gql.body.data!.credits).toEqual(rest.body);
      expect(await trpc.credits.get.query()).toEqual(rest.body);
    });
  });

  describe('keys and ownership', () => {
    it('refuses a missing key on all three', async () => {
      expect((await getJson(`${server.url}/api/v1/credits`, undefined)).status).toBe(401);

      const gql = await graphql(server.url, undefined, '{ credits { plan } }');
      expect(gql.status).toBe(401);
      expect(gql.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
      const upload = await graphqlConvert(server.url, undefined, text, { to: 'md' });
      expect(upload.status).toBe(401);
      expect(upload.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');

      const anonymous = createTransmuteClient(server.url, `ck_live_${'A'.repeat(43)}`);
      expect(await trpcFailure(anonymous.credits.get.query())).toMatchObject({ code: 'UNAUTHORIZED', httpStatus: 401 });
      expect(await trpcFailure(anonymous.convert.mutate(convertForm(text, { to: 'md' })))).toMatchObject({
        code: 'UNAUTHORIZED',
        httpStatus: 401,
      });
      const bare = await fetch(`${server.url}/trpc/credits.get`);
      expect(bare.status).toBe(401);
    });

    it("never shows one key holder's job to another", async () => {
      const accepted = await trpc.convert.mutate(convertForm(text, { to: 'md', options: '{"steps":1}' }));
      const otherKey = await server.createKey('pro');

      expect((await getJson(`${server.url}/api/v1/jobs/${accepted.jobId}`, otherKey)).status).toBe(404);
      const gql = await graphql(server.url, otherKey, `{ job(id: "${accepted.jobId}") { status } }`);
      expect(gql.body.data!.job).toBeNull();
      expect(gql.body.errors?.[0]).toMatchObject({ message: 'Job not found', extensions: { code: 'NOT_FOUND' } });
      expect(
        await trpcFailure(createTransmuteClient(server.url, otherKey).jobs.get.query({ jobId: accepted.jobId })),
      ).toMatchObject({ code: 'NOT_FOUND', httpStatus: 404 });

      const stolen = await graphqlSubscribe(
        server.url,
        otherKey,
        `subscription { jobUpdated(id: "${accepted.jobId}") { status } }`,
        {},
      );
      expect(stolen.events.some((e) => e.data?.includes('NOT_FOUND'))).toBe(true);
      expect(stolen.events.some((e) => e.data?.includes('"status"'))).toBe(false);
      // tRPC: the refusal comes on the stream (the first read), mapped like a start error.
      const stolenWatch = await new Promise<unknown>((resolve) => {
        const subscription = createTransmuteClient(server.url, otherKey).jobs.watch.subscribe(
          { jobId: accepted.jobId },
          {
            onData: (status) => resolve(status),
            onError: (error) => {
              subscription.unsubscribe();
              resolve(error);
            },
          },
        );
      });
      expect(stolenWatch).toBeInstanceOf(TRPCClientError);
      expect(stolenWatch).toMatchObject({ message: 'Job not found', data: { code: 'NOT_FOUND', httpStatus: 404 } });
      await waitForJob(server.url, key, accepted.jobId);
    });
  });

  describe('subscriptions', () => {
    it('GraphQL jobUpdated over SSE: the current state, every change, then complete after done', async () => {
      const accepted = await graphqlConvert(server.url, key, text, {
        to: 'md',
        options: { testSlowText: { steps: 8 } },
      });
      const jobId = accepted.body.data!.convert.jobId;
      const sse = await graphqlSubscribe(
        server.url,
        key,
        `subscription Watch($id: ID!) { jobUpdated(id: $id) { jobId status progress downloadUrl expiresIn } }`,
        { id: jobId },
      );
      expect(sse.contentType).toMatch(/text\/event-stream/);
      expect(sse.events.at(-1)?.event).toBe('complete');
      const states = sse.events.filter((e) => e.event === 'next').map((e) => JSON.parse(e.data!).data.jobUpdated);
      expect(['waiting', 'active']).toContain(states[0].status);
      expect(states.at(-1)).toEqual({
        jobId,
        status: 'done',
        progress: null,
        downloadUrl: expect.stringContaining('/api/download/'),
        expiresIn: 900,
      });
      expect(states.some((s) => s.status === 'active' && s.progress > 0 && s.progress < 100)).toBe(true);
      // Every event is a change.
      const snapshots = states.map((s) => JSON.stringify(s));
      expect(new Set(snapshots).size).toBe(snapshots.length);
    });

    it('tRPC jobs.watch over SSE with the typed client', async () => {
      const accepted = await trpc.convert.mutate(convertForm(text, { to: 'md', options: '{"steps":5}' }));
      const states = await new Promise<JobStatus[]>((resolve, reject) => {
        const seen: JobStatus[] = [];
        const subscription = trpc.jobs.watch.subscribe(
          { jobId: accepted.jobId },
          {
            onData(status) {
              seen.push(status);
              if (status.status === 'done' || status.status === 'failed') {
                subscription.unsubscribe();
                resolve(seen);
              }
            },
            onError: reject,
          },
        );
      });
      expect(['waiting', 'active']).toContain(states[0]!.status);
      expect(states.at(-1)).toEqual({ status: 'done', downloadUrl: expect.any(String), expiresIn: 900 });
    });
  });

  describe('rules on every surface', () => {
    it('validates options with the plugin schema (GraphQL BAD_USER_INPUT, tRPC BAD_REQUEST)', async () => {
      const gql = await graphqlConvert(server.url, key, text, { to: 'md', options: { testSlowText: { steps: 1000 } } });
      expect(gql.body.errors?.[0]).toMatchObject({
        message: expect.stringMatching(/Invalid steps/),
        extensions: { code: 'BAD_USER_INPUT' },
      });
      // The options are typed: a field no plugin takes, or two plugins at once, never reach a resolver.
      const unknown = await graphqlConvert(server.url, key, text, {
        to: 'md',
        options: { testSlowText: { colour: 'red' } },
      });
      expect(unknown.body.errors?.[0]?.message).toMatch(/"colour" is not defined by type "TestSlowTextOptions"/);
      const two = await graphqlConvert(server.url, key, text, {
        to: 'md',
        options: { testSlowText: { steps: 1 }, imageConvert: { quality: 50 } },
      });
      expect(two.body.errors?.[0]?.message).toMatch(
        /Exactly one key must be specified for OneOf type "ConvertOptions"/,
      );
      const otherPlugin = await graphqlConvert(server.url, key, text, {
        to: 'md',
        options: { imageConvert: { quality: 50 } },
      });
      expect(otherPlugin.body.errors?.[0]).toMatchObject({
        message: 'The options are for image-convert, but txt -> md is run by test-slow-text',
        extensions: { code: 'BAD_USER_INPUT' },
      });
      expect(
        await trpcFailure(trpc.convert.mutate(convertForm(text, { to: 'md', options: '{"steps":"many"}' }))),
      ).toMatchObject({ code: 'BAD_REQUEST', httpStatus: 400 });
      expect(await trpcFailure(trpc.convert.mutate(convertForm(text, { to: 'md', options: '[1]' })))).toMatchObject({
        code: 'BAD_REQUEST',
        message: 'options must be a JSON object string',
      });
      expect(await trpcFailure(trpc.convert.mutate(convertForm(text, { to: 'md', steps: '2' })))).toMatchObject({
        message: expect.stringMatching(/Unexpected field 'steps'/),
      });
      expect(await trpcFailure(trpc.convert.mutate(convertForm(text, {})))).toMatchObject({
        code: 'BAD_REQUEST',
        message: expect.stringMatching(/Missing 'to'/),
      });
    });

    it("refuses files over the plan's limit while streaming (413 / PAYLOAD_TOO_LARGE)", async () => {
      const freeKey = await server.createKey('free');
      const big = { name: 'big.txt', data: Buffer.alloc(25_000_001 + 1024, 'a') };
      const gql = await graphqlConvert(server.url, freeKey, big, { to: 'md' });
      expect(gql.body.errors?.[0]?.extensions?.code).toBe('PAYLOAD_TOO_LARGE');
      expect(
        await trpcFailure(createTransmuteClient(server.url, freeKey).convert.mutate(convertForm(big, { to: 'md' }))),
      ).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', httpStatus: 413 });
      const credits = await getJson(`${server.url}/api/v1/credits`, freeKey);
      expect(credits.body.creditsUsed).toBe(0);
    });

    it('gates plans the same way (signed URLs: FORBIDDEN below Business, minted on Business)', async () => {
      const accepted = await trpc.convert.mutate(convertForm(text, { to: 'md', options: '{"steps":1}' }));
      await waitForJob(server.url, key, accepted.jobId);
      const rest = await fetch(`${server.url}/api/v1/signed-url`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...authHeaders(key) },
        body: JSON.stringify({ jobId: accepted.jobId }),
      });
      expect(rest.status).toBe(403);
      expect(await rest.json()).toMatchObject({ code: 'plan_required' });
      const gql = await graphql(server.url, key, `mutation { createSignedUrl(jobId: "${accepted.jobId}") { url } }`);
      expect(gql.body.errors?.[0]?.extensions).toMatchObject({ code: 'FORBIDDEN', reason: 'plan_required' });
      expect(await trpcFailure(trpc.signedUrl.create.mutate({ jobId: accepted.jobId, reusable: true }))).toMatchObject({
        code: 'FORBIDDEN',
        httpStatus: 403,
        reason: 'plan_required',
      });

      const businessKey = await server.createKey('business');
      const business = createTransmuteClient(server.url, businessKey);
      const job = await business.convert.mutate(convertForm(text, { to: 'md', options: '{"steps":1}' }));
      await waitForJob(server.url, businessKey, job.jobId);
      const viaGraphql = await graphql(
        server.url,
        businessKey,
        `mutation { createSignedUrl(jobId: "${job.jobId}", expirySeconds: 3600) { url expiresIn expiresAt reusable } }`,
      );
      expect(viaGraphql.body.data!.createSignedUrl).toMatchObject({ expiresIn: 3600, reusable: true });
      const viaTrpc = await business.signedUrl.create.mutate({
        jobId: job.jobId,
        expirySeconds: 3600,
        reusable: false,
      });
      expect(viaTrpc).toMatchObject({ expiresIn: 3600, reusable: false });
      expect((await download(viaGraphql.body.data!.createSignedUrl.url)).data.toString()).toContain('HELLO SURFACES');
      expect(
        await trpcFailure(business.signedUrl.create.mutate({ jobId: job.jobId, expirySeconds: 5, reusable: true })),
      ).toMatchObject({ code: 'BAD_REQUEST' });
    });

    it('counts GraphQL requests against the rate limit (429 / RATE_LIMITED)', async () => {
      const freeKey = await server.createKey('free');
      await withinOneRateWindow();
      for (let i = 0; i < 30; i++)
        expect((await graphql(server.url, freeKey, '{ credits { plan } }')).status).toBe(200);
      const limited = await fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...authHeaders(freeKey) },
        body: JSON.stringify({ query: '{ credits { plan } }' }),
      });
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await limited.json()).errors[0].extensions.code).toBe('RATE_LIMITED');
      expect(await trpcFailure(createTransmuteClient(server.url, freeKey).credits.get.query())).toMatchObject({
        code: 'TOO_MANY_REQUESTS',
        httpStatus: 429,
      });
    });
  });

  describe('merge and batch', () => {
    it('mergePdf (GraphQL) and merge (tRPC): one PDF with every page, in order, charged like REST', async () => {
      const files = [await pdfWithPages('two.pdf', 2), await pdfWithPages('three.pdf', 3)];
      const gql = await graphqlFiles(server.url, key, MERGE_PDF, files);
      const viaTrpc = await trpc.merge.mutate(filesForm(files));
      const form = filesForm(files);
      const rest = await fetch(`${server.url}/api/pdf/merge`, {
        method: 'POST',
        body: form,
        headers: authHeaders(key),
      }).then((r) => r.json());

      const merged = gql.body.data!.mergePdf;
      expect(merged).toEqual({
        jobId: expect.any(String),
        status: 'queued',
        creditCost: rest.creditCost,
        creditsRemaining: expect.any(Number),
      });
      expect(viaTrpc).toMatchObject({
        status: 'queued',
        creditCost: rest.creditCost,
        statusUrl: `/api/v1/jobs/${viaTrpc.jobId}`,
      });
      for (const jobId of [merged.jobId, viaTrpc.jobId]) {
        const done = await waitForJob(server.url, key, jobId);
        expect(done.status, JSON.stringify(done)).toBe('done');
        const output = await download(done.downloadUrl!);
        expect((await PDFDocument.load(output.data)).getPageCount()).toBe(5);
      }
    });

    it('batchConvert (GraphQL) and batch.convert (tRPC): status like REST, then a ZIP of both outputs', async () => {
      const files = [await png('red.png', '#c03030'), await png('blue.png', '#3030c0')];
      const gql = await graphqlFiles(server.url, key, BATCH_CONVERT, files, { to: 'webp', quality: 60 });
      const viaTrpc = await trpc.batch.convert.mutate(filesForm(files, { to: 'webp', quality: '60' }));
      expect(gql.body.data!.batchConvert).toEqual({ batchId: expect.any(String), total: 2, errors: [] });
      expect(viaTrpc).toEqual({
        batchId: expect.any(String),
        total: 2,
        errors: [],
        statusUrl: `/api/batch/${viaTrpc.batchId}`,
      });

      const BATCH = 'query Batch($id: ID!) { batch(id: $id) { total completed done downloadUrl } }';
      const gqlId = gql.body.data!.batchConvert.batchId;
      const gqlDone = await poll(
        async () => (await graphql(server.url, key, BATCH, { id: gqlId })).body.data!.batch,
        (b) => b.done,
      );
      const trpcDone = await poll(
        () => trpc.batch.get.query({ batchId: viaTrpc.batchId }),
        (b) => b.done,
      );
      expect(gqlDone).toEqual({
        total: 2,
        completed: 2,
        done: true,
        downloadUrl: `${server.url}/api/batch/${gqlId}/download`,
      });
      expect(trpcDone).toEqual((await getJson(`${server.url}/api/batch/${viaTrpc.batchId}`, key)).body);

      // `quality` reached the encoder: red.webp is the single conversion at quality 60, byte for byte.
      const single = await trpc.convert.mutate(convertForm(files[0]!, { to: 'webp', options: '{"quality":60}' }));
      const atQuality60 = (await download((await waitForJob(server.url, key, single.jobId)).downloadUrl!)).data;
      for (const downloadUrl of [gqlDone.downloadUrl, trpcDone.downloadUrl!]) {
        const entries = await zipEntries(downloadUrl, key);
        expect([...entries.keys()]).toEqual(['blue.webp', 'red.webp']);
        expect(entries.get('red.webp')!.equals(atQuality60)).toBe(true);
      }
    });

    it('refuses both on the Free plan (FORBIDDEN) before reading a file', async () => {
      const freeKey = await server.createKey('free');
      // Files over the Free size limit: reading them would answer PAYLOAD_TOO_LARGE.
      const files = [overFreeLimit('big.pdf'), await pdfWithPages('small.pdf', 1)];
      const merge = await graphqlFiles(server.url, freeKey, MERGE_PDF, files);
      expect(merge.body.errors?.[0]).toMatchObject({
        message: 'PDF merge requires the Pro plan or higher',
        extensions: { code: 'FORBIDDEN', reason: 'plan_required' },
      });
      const batch = await graphqlFiles(server.url, freeKey, BATCH_CONVERT, files, { to: 'webp' });
      expect(batch.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');

      const free = createTransmuteClient(server.url, freeKey);
      expect(await trpcFailure(free.merge.mutate(filesForm(files)))).toMatchObject({
        code: 'FORBIDDEN',
        httpStatus: 403,
      });
      expect(await trpcFailure(free.batch.convert.mutate(filesForm(files, { to: 'webp' })))).toMatchObject({
        code: 'FORBIDDEN',
        httpStatus: 403,
      });
      expect((await getJson(`${server.url}/api/v1/credits`, freeKey)).body.creditsUsed).toBe(0);
    });

    it('limits the file count per mutation, as REST', async () => {
      const tooMany = await Promise.all(Array.from({ length: 51 }, (_, i) => pdfWithPages(`p${i}.pdf`, 1)));
      // On Pro the request parser's bound (the most any mutation takes) is 50 already; on
      // Business it is the 200 of a batch, and mergePdf applies its own 50.
      for (const holder of [key, await server.createKey('business')]) {
        const merge = await graphqlFiles(server.url, holder, MERGE_PDF, tooMany);
        expect(merge.body.errors?.[0]).toMatchObject({
          message: 'At most 50 files per request',
          extensions: { code: 'BAD_USER_INPUT' },
        });
      }
      expect(await trpcFailure(trpc.merge.mutate(filesForm(tooMany)))).toMatchObject({
        code: 'BAD_REQUEST',
        message: 'At most 50 files per request',
      });
      expect(await trpcFailure(trpc.batch.convert.mutate(filesForm(tooMany, { to: 'webp' })))).toMatchObject({
        code: 'BAD_REQUEST',
        message: 'At most 50 files per request',
      });
      expect(await trpcFailure(trpc.merge.mutate(filesForm(tooMany.slice(0, 2), { to: 'pdf' })))).toMatchObject({
        code: 'BAD_REQUEST',
        message: expect.stringMatching(/Unexpected field 'to'/),
      });
    });

    it(
      "shows a batch only to its key holder (FORBIDDEN for another, as REST's 403; NOT_FOUND when " + 'unknown)',
      async () => {
        const accepted = await trpc.batch.convert.mutate(
          filesForm([await png('green.png', '#30c030')], { to: 'webp' }),
        );
        const otherKey = await server.createKey('pro');
        expect((await getJson(`${server.url}/api/batch/${accepted.batchId}`, otherKey)).status).toBe(403);
        const gql = await graphql(server.url, otherKey, 'query Batch($id: ID!) { batch(id: $id) { total } }', {
          id: accepted.batchId,
        });
        expect(gql.body.data!.batch).toBeNull();
        expect(gql.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
        const other = createTransmuteClient(server.url, otherKey);
        expect(await trpcFailure(other.batch.get.query({ batchId: accepted.batchId }))).toMatchObject({
          code: 'FORBIDDEN',
          httpStatus: 403,
        });
        expect(await trpcFailure(other.batch.get.query({ batchId: 'no-such-batch' }))).toMatchObject({
          code: 'NOT_FOUND',
          httpStatus: 404,
        });
        expect(
          (await graphql(server.url, otherKey, '{ batch(id: "no-such-batch") { total } }')).body.errors?.[0]?.extensions
            ?.code,
        ).toBe('NOT_FOUND');
        await poll(
          () => trpc.batch.get.query({ batchId: accepted.batchId }),
          (b) => b.done,
        );
      },
    );
  });

  describe('extraction tools', () => {
    const PDF_TO_MARKDOWN =
      `mutation Md($files: [Upload!]!, $keepRunning: Boolean, $pageBreaks: Boolean) {
      pdfToMarkdown(files: $files, keepRunning: $keepRunning, pageBreaks: $pageBreaks) { batchId total errors { ` +
      `filename error } }
    }`;
    const FILE_SEARCH = `mutation Search($files: [Upload!]!, $query: String!, $wholeWord: Boolean) {
      fileSearch(files: $files, query: $query, wholeWord: $wholeWord) { batchId total errors { filename error } }
    }`;
    const TRANSCRIBE = 'mutation T($files: [Upload!]!) { transcribe(files: $files) { batchId } }';
    const EXTRACTION = `query Extraction($tool: String!, $id: ID!) {
      extraction(tool: $tool, id: $id) {
        done total completed failed totalHits
        rows {
          __typename filename status error data
          ... on PdfToMarkdownRow { pages markdown stats { headings tables words runningLinesStripped } }
          ... on FileSearchRow { kind count truncated matches { location snippet offset length } }
        }
      }
    }`;
    let report: TestFile;
    let memo: TestFile;
    // Extraction polls are many: these tests get a Pro key and client of their own, so the
    // suite's shared key stays under its 120 requests a minute.
    let key: string;
    let trpc: TransmuteClient;

    beforeAll(async () => {
      key = await server.createKey('pro');
      trpc = createTransmuteClient(server.url, key);
      report = await pdfWith('report.pdf', 'Quarterly Report', 'Revenue grew in every region this quarter.');
      memo = await pdfWith('memo.pdf', 'Team Memo', 'The office is closed on Friday.');
    });

    const gqlExtraction = async (holder: string, tool: string, id: string) => {
      const { body } = await graphql(server.url, holder, EXTRACTION, { tool, id });
      if (!body.data?.extraction) throw new Error(`extraction query failed: ${JSON.stringify(body.errors)}`);
      return body.data.extraction;
    };

    it(
      'pdfToMarkdown (GraphQL) and extraction.pdfToMarkdown (tRPC): rows like REST, each with its ' + 'Markdown',
      async () => {
        const files = [report, { name: 'notes.txt', data: 'not a pdf' }, memo];
        const gql = await graphqlFiles(server.url, key, PDF_TO_MARKDOWN, files, { pageBreaks: false });
        const viaTrpc = await trpc.extraction.pdfToMarkdown.mutate(filesForm(files, { pageBreaks: 'false' }));
        const rejected = [{ filename: 'notes.txt', error: 'PDF to Markdown does not read .txt files' }];
        expect(gql.body.data!.pdfToMarkdown).toEqual({ batchId: expect.any(String), total: 2, errors: rejected });
        expect(viaTrpc).toEqual({
          batchId: expect.any(String),
          total: 2,
          errors: rejected,
          statusUrl: `/api/pdf-to-markdown/${viaTrpc.batchId}`,
        });

        const gqlId = gql.body.data!.pdfToMarkdown.batchId;
        const gqlDone = await poll(
          () => gqlExtraction(key, 'pdf-to-markdown', gqlId),
          (p) => p.done,
        );
        expect(gqlDone).toMatchObject({ done: true, total: 2, completed: 2, failed: 0, totalHits: null });
        expect(
          gqlDone.rows.map((r: { filename: string; status: string; error: unknown }) => [
            r.filename,
            r.status,
            r.error,
          ]),
        ).toEqual([
          ['report.pdf', 'completed', null],
          ['memo.pdf', 'completed', null],
        ]);
        const [first, second] = gqlDone.rows;
        expect(first.data).toMatchObject({
          pages: 1,
          markdown: '# Quarterly Report\n\nRevenue grew in every region this quarter.\n',
        });
        expect(second.data.markdown).toContain('# Team Memo');

        const trpcDone = await poll(
          () => trpc.extraction.get.query({ tool: 'pdf-to-markdown', batchId: viaTrpc.batchId }),
          (p) => p.done,
        );
        expect(trpcDone).toEqual((await getJson(`${server.url}${viaTrpc.statusUrl}`, key)).body);
        expect(trpcDone.rows[0]).toMatchObject({
          filename: 'report.pdf',
          status: 'completed',
          markdown: first.data.markdown,
        });
        // GraphQL's data is the REST row without filename and status.
        const { filename: _f, status: _s, ...restData } = trpcDone.rows[1]!;
        expect(second.data).toEqual(restData);

        // Typed rows: the spec's fields on GraphQL's PdfToMarkdownRow, and the REST rows are exactly the declared row
        // schema.
        expect(first).toMatchObject({
          __typename: 'PdfToMarkdownRow',
          pages: 1,
          markdown: first.data.markdown,
          stats: {
            headings: first.data.stats.headings,
            tables: first.data.stats.tables,
            words: first.data.stats.words,
            runningLinesStripped: first.data.stats.running_lines_stripped,
          },
        });
        for (const row of trpcDone.rows) expect(pdfToMarkdownRowSchema.parse(row)).toEqual(row);
      },
    );

    it('passes each tool its own arguments (fileSearch: query, wholeWord; totalHits over the files)', async () => {
      const files = [
        { name: 'a.txt', data: 'hello world\nhello again\nhelloween' },
        { name: 'b.txt', data: 'Hello there' },
      ];
      const gql = await graphqlFiles(server.url, key, FILE_SEARCH, files, { query: 'hello', wholeWord: true });
      const viaTrpc = await trpc.extraction.fileSearch.mutate(filesForm(files, { query: 'hello', wholeWord: 'true' }));
      const gqlDone = await poll(
        () => gqlExtraction(key, 'file-search', gql.body.data!.fileSearch.batchId),
        (p) => p.done,
      );
      const trpcDone = await poll(
        () => trpc.extraction.get.query({ tool: 'file-search', batchId: viaTrpc.batchId }),
        (p) => p.done,
      );
      expect(gqlDone.totalHits).toBe(3);
      expect(trpcDone.totalHits).toBe(3);
      expect(gqlDone.rows.map((r: { data: { count: number } }) => r.data.count)).toEqual([2, 1]);
      expect(
        gqlDone.rows.map((r: { __typename: string; count: number; truncated: boolean; kind: string }) => [
          r.__typename,
          r.count,
          r.truncated,
          r.kind,
        ]),
      ).toEqual(
        gqlDone.rows.map((r: { data: { count: number; kind: string } }) => [
          'FileSearchRow',
          r.data.count,
          false,
          r.data.kind,
        ]),
      );
      expect(gqlDone.rows[0].matches).toEqual(gqlDone.rows[0].data.matches);
      for (const row of trpcDone.rows) expect(fileSearchRowSchema.parse(row)).toEqual(row);

      const missing = await graphqlFiles(
        server.url,
        key,
        'mutation S($files: [Upload!]!) { fileSearch(files: $files, query: "") { batchId } }',
        files,
      );
      expect(missing.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      expect(await trpcFailure(trpc.extraction.fileSearch.mutate(filesForm(files)))).toMatchObject({
        code: 'BAD_REQUEST',
        httpStatus: 400,
      });
      expect(
        await trpcFailure(trpc.extraction.pdfToMarkdown.mutate(filesForm([report], { pageBreaks: 'maybe' }))),
      ).toMatchObject({ code: 'BAD_REQUEST', message: 'pageBreaks must be true or false' });
    });

    it(
      'gives a Free key one single-file try per tool: FORBIDDEN with reason trial_single_file, then trial_used, on ' +
        'both',
      async () => {
        const freeKey = await server.createKey('free');
        const free = createTransmuteClient(server.url, freeKey);
        // A file over the Free size limit would answer PAYLOAD_TOO_LARGE if it were read: the count is refused first
        // (GraphQL knows it before reading any file; tRPC's form parser refuses the second file part before reading
        // it).
        const big = overFreeLimit('big.pdf');
        const several = await graphqlFiles(server.url, freeKey, PDF_TO_MARKDOWN, [big, report]);
        expect(several.body.errors?.[0]).toMatchObject({
          extensions: { code: 'FORBIDDEN', reason: 'trial_single_file' },
        });
        expect(await trpcFailure(free.extraction.pdfToMarkdown.mutate(filesForm([report, big])))).toMatchObject({
          code: 'FORBIDDEN',
          httpStatus: 403,
          reason: 'trial_single_file',
        });

        const trial = await graphqlFiles(server.url, freeKey, PDF_TO_MARKDOWN, [report]);
        expect(trial.body.data!.pdfToMarkdown).toMatchObject({ total: 1, errors: [] });
        const done = await poll(
          () => gqlExtraction(freeKey, 'pdf-to-markdown', trial.body.data!.pdfToMarkdown.batchId),
          (p) => p.done,
        );
        expect(done.rows[0].data.markdown).toContain('# Quarterly Report');

        const again = await graphqlFiles(server.url, freeKey, PDF_TO_MARKDOWN, [report]);
        expect(again.body.data!.pdfToMarkdown).toBeNull();
        expect(again.body.errors?.[0]).toMatchObject({
          message: expect.stringMatching(/free try/),
          extensions: { code: 'FORBIDDEN', reason: 'trial_used' },
        });
        expect(await trpcFailure(free.extraction.pdfToMarkdown.mutate(filesForm([report])))).toMatchObject({
          code: 'FORBIDDEN',
          httpStatus: 403,
          reason: 'trial_used',
        });

        // Another tool's try is still there, through tRPC this time; then spent there too.
        const search = await free.extraction.fileSearch.mutate(
          filesForm([{ name: 'a.txt', data: 'free text' }], { query: 'free' }),
        );
        expect(search).toMatchObject({ total: 1, errors: [] });
        expect(
          await trpcFailure(
            free.extraction.fileSearch.mutate(filesForm([{ name: 'a.txt', data: 'free text' }], { query: 'free' })),
          ),
        ).toMatchObject({ code: 'FORBIDDEN', reason: 'trial_used' });
        expect((await getJson(`${server.url}/api/v1/credits`, freeKey)).body.creditsUsed).toBe(0);
      },
    );

    it('gates each tool by plan (transcribe: Business and up) like REST', async () => {
      const audio = { name: 'a.mp3', data: Buffer.from('ID3') };
      const gql = await graphqlFiles(server.url, key, TRANSCRIBE, [audio]);
      expect(gql.body.errors?.[0]).toMatchObject({
        message: 'Transcription requires the Business plan or higher',
        extensions: { code: 'FORBIDDEN', reason: 'plan_required' },
      });
      expect(await trpcFailure(trpc.extraction.transcribe.mutate(filesForm([audio])))).toMatchObject({
        code: 'FORBIDDEN',
        httpStatus: 403,
        reason: 'plan_required',
      });
    });

    it(
      'shows results only to their key holder (FORBIDDEN for another; NOT_FOUND when unknown or another ' + "tool's)",
      async () => {
        const accepted = await trpc.extraction.pdfToMarkdown.mutate(filesForm([memo]));
        await poll(
          () => trpc.extraction.get.query({ tool: 'pdf-to-markdown', batchId: accepted.batchId }),
          (p) => p.done,
        );
        const otherKey = await server.createKey('pro');
        const other = createTransmuteClient(server.url, otherKey);
        const stolen = await graphql(server.url, otherKey, EXTRACTION, {
          tool: 'pdf-to-markdown',
          id: accepted.batchId,
        });
        expect(stolen.body.data!.extraction).toBeNull();
        expect(stolen.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
        expect(
          await trpcFailure(other.extraction.get.query({ tool: 'pdf-to-markdown', batchId: accepted.batchId })),
        ).toMatchObject({ code: 'FORBIDDEN', httpStatus: 403 });

        expect(
          (await graphql(server.url, key, EXTRACTION, { tool: 'parse-cv', id: accepted.batchId })).body.errors?.[0]
            ?.extensions?.code,
        ).toBe('NOT_FOUND');
        expect(
          await trpcFailure(trpc.extraction.get.query({ tool: 'pdf-to-markdown', batchId: 'no-such-batch' })),
        ).toMatchObject({ code: 'NOT_FOUND', httpStatus: 404 });
        expect(
          (await graphql(server.url, key, EXTRACTION, { tool: 'ocr', id: accepted.batchId })).body.errors?.[0],
        ).toMatchObject({
          message: expect.stringMatching(/Unknown extraction tool 'ocr'/),
          extensions: { code: 'BAD_USER_INPUT' },
        });
        expect(
          await trpcFailure(trpc.extraction.get.query({ tool: 'ocr' as 'parse-cv', batchId: accepted.batchId })),
        ).toMatchObject({ code: 'BAD_REQUEST' });
      },
    );
  });

  describe('one registry, every surface', () => {
    it('lists the test plugin on GraphQL, tRPC, REST and OpenAPI', async () => {
      const gql = await graphql(
        server.url,
        key,
        '{ formats { conversions { from to } operations { pluginId kind title inputs outputs plan available options ' +
          'optionsType optionsField } } }',
      );
      const rest = await getJson(`${server.url}/api/v1/formats`, key);
      const viaTrpc = await trpc.formats.list.query();

      const restOp = rest.body.operations.find((o: { pluginId: string }) => o.pluginId === 'test-slow-text');
      expect(restOp).toMatchObject({ kind: 'convert', inputs: ['txt'], outputs: ['md'], plan: 'free' });
      expect(viaTrpc).toEqual(rest.body);
      // The wire schema OpenAPI is generated from describes what is served, field for field.
      expect(formatsSchema.parse(rest.body)).toEqual(rest.body);
      const gqlOp = gql.body.data!.formats.operations.find(
        (o: { pluginId: string }) => o.pluginId === 'test-slow-text',
      );
      expect(gqlOp).toEqual({
        pluginId: 'test-slow-text',
        kind: 'convert',
        title: restOp.title,
        inputs: ['txt'],
        outputs: ['md'],
        plan: 'free',
        available: true,
        options: restOp.options,
        optionsType: 'TestSlowTextOptions',
        optionsField: 'testSlowText',
      });
      expect(gql.body.data!.formats.conversions).toContainEqual({ from: 'txt', to: rest.body.conversions.txt });

      const introspection = await graphql(
        server.url,
        key,
        '{ __type(name: "TestSlowTextOptions") { inputFields { name defaultValue type { name } } } }',
      );
      expect(introspection.body.data!.__type.inputFields).toEqual([
        { name: 'steps', defaultValue: '20', type: { name: 'Int' } },
      ]);

      const openapi = await getJson(`${server.url}/api/openapi.json`, undefined);
      const form = openapi.body.paths['/api/v1/convert'].post.requestBody.content['multipart/form-data'].schema;
      expect(form.properties.steps).toMatchObject({
        type: 'integer',
        minimum: 1,
        maximum: 100,
        description: expect.stringContaining('Slow text to Markdown (test)'),
      });
      expect(form.properties.to.enum).toContain('md');
      expect(form.properties.resize).toMatchObject({
        type: 'string',
        contentMediaType: 'application/json',
        contentSchema: { type: 'object' },
      });
      expect(
        openapi.body.paths['/api/v1/convert'].post.requestBody.content['multipart/form-data'].encoding.resize,
      ).toEqual({ contentType: 'application/json' });
    });
  });

  describe('OpenAPI and /docs', () => {
    const SPEC_ROUTES: Array<[method: 'GET' | 'POST', url: string, documented: string]> = [
      ['POST', '/api/v1/convert', '/api/v1/convert'],
      ['GET', '/api/v1/jobs/:jobId', '/api/v1/jobs/{jobId}'],
      ['GET', '/api/download/:token', '/api/download/{token}'],
      ['POST', '/api/v1/signed-url', '/api/v1/signed-url'],
      ['GET', '/api/v1/credits', '/api/v1/credits'],
      ['GET', '/api/v1/history', '/api/v1/history'],
      ['GET', '/api/v1/formats', '/api/v1/formats'],
      ['POST', '/api/pdf/merge', '/api/pdf/merge'],
      ['POST', '/api/batch/convert', '/api/batch/convert'],
      ['GET', '/api/batch/:id', '/api/batch/{id}'],
      ['GET', '/api/batch/:id/download', '/api/batch/{id}/download'],
      ['GET', '/healthz', '/healthz'],
      ['GET', '/readyz', '/readyz'],
      ...Object.keys(SPEC_EXTRACTION_TOOLS).flatMap(
        (tool): Array<['GET' | 'POST', string, string]> => [
          ['POST', `/api/${tool}`, `/api/${tool}`],
          ['GET', `/api/${tool}/:id`, `/api/${tool}/{id}`],
        ],
      ),
    ];

    it('documents exactly the REST paths the server serves', async () => {
      const { status, body } = await getJson(`${server.url}/api/openapi.json`, undefined);
      expect(status).toBe(200);
      expect(body.openapi).toBe('3.1.0');
      const app = server.server.app;
      for (const [path, methods] of Object.entries<Record<string, unknown>>(body.paths)) {
        for (const method of Object.keys(methods)) {
          expect(
            app.hasRoute({ method: method.toUpperCase() as 'GET', url: path.replace(/\{(\w+)\}/g, ':$1') }),
            `${method} ${path} is served`,
          ).toBe(true);
        }
      }
      for (const [method, url, documented] of SPEC_ROUTES) {
        if (app.hasRoute({ method, url }))
          expect(body.paths[documented]?.[method.toLowerCase()], `${method} ${url} is documented`).toBeDefined();
      }
      const refs = [...JSON.stringify(body).matchAll(/"\$ref":"#\/components\/(\w+)\/([\w-]+)"/g)];
      for (const [, kind, name] of refs) expect(body.components[kind!][name!], `${kind}/${name}`).toBeDefined();
      expect(body.components.schemas.JobStatus.properties.status.enum).toEqual(['waiting', 'active', 'done', 'failed']);
      expect(body.components.schemas.Error.required).toEqual(['error']);
      expect(body.paths['/api/v1/convert'].post.responses['413']).toEqual({ $ref: '#/components/responses/413' });
      const formOf = (route: string) => body.paths[route].post.requestBody.content['multipart/form-data'].schema;
      expect(formOf('/api/pdf/merge')).toMatchObject({
        required: ['files'],
        properties: { files: { type: 'array', minItems: 2 } },
      });
      expect(formOf('/api/batch/convert')).toMatchObject({
        required: ['files', 'to'],
        properties: { files: { type: 'array' }, quality: { type: 'integer' } },
      });
      expect(body.paths['/api/batch/{id}'].get.responses['200']).toMatchObject({
        content: { 'application/json': { schema: { $ref: '#/components/schemas/BatchStatus' } } },
      });
      expect(formOf('/api/file-search')).toMatchObject({
        required: ['files', 'query'],
        properties: { files: { type: 'array', maxItems: 50 }, wholeWord: { type: 'boolean' } },
      });
      expect(body.paths['/api/pdf-to-markdown/{id}'].get.responses['200']).toMatchObject({
        content: { 'application/json': { schema: { $ref: '#/components/schemas/PdfToMarkdownPoll' } } },
      });
      expect(body.components.schemas.ExtractionPoll.properties.rows.items.properties.status.enum).toEqual([
        'queued',
        'processing',
        'completed',
        'failed',
      ]);
    });

    it('serves a self-contained reference page', async () => {
      const res = await fetch(`${server.url}/docs`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/text\/html/);
      const page = await res.text();
      expect(page).toContain('/api/v1/convert');
      expect(page).toContain('<code>steps</code>');
      expect(page).not.toMatch(/<script|<link[^>]+href="http|src="http/);
    });
  });

  describe('tRPC in process', () => {
    it('runs the router through createCaller', async () => {
      const caller = createCaller(
        createTrpcContext(
          server.server.runtime.services,
          await server.server.runtime.services.accounts.authenticateKey(key),
        ),
      );
      expect((await caller.credits.get()).plan).toBe('Pro');
      expect((await caller.formats.list()).operations.some((o) => o.pluginId === 'test-slow-text')).toBe(true);
      const form = new FormData();
      form.append('file', new File(['in process'], 'caller.txt'));
      form.append('to', 'md');
      form.append('options', '{"steps":1}');
      const accepted = await caller.convert(form);
      expect(accepted).toMatchObject({ status: 'queued', creditCost: 3 });
      await waitForJob(server.url, key, accepted.jobId);
      expect(await caller.jobs.get({ jobId: accepted.jobId })).toMatchObject({ status: 'done', expiresIn: 900 });
      expect((await caller.history.list()).history[0]!.jobId).toBe(accepted.jobId);
      await expect(caller.jobs.get({ jobId: 'nope' })).rejects.toMatchObject({ code: 'NOT_FOUND' });

      const stranger = createCaller(createTrpcContext(server.server.runtime.services));
      await expect(stranger.credits.get()).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    });
  });

  describe('examples/convert.ts', () => {
    it('converts a file from a TypeScript script', { timeout: 60_000 }, async () => {
      const dir = await mkdtemp(path.join(os.tmpdir(), 'transmute-example-'));
      try {
        const input = path.join(dir, 'example.txt');
        await import('node:fs/promises').then((fs) => fs.writeFile(input, 'from a script'));
        const child = spawn(
          process.execPath,
          ['--import', 'tsx', path.join(ROOT, 'examples/convert.ts'), input, 'md', '--options', '{"steps":2}'],
          {
            cwd: ROOT,
            env: { ...process.env, TRANSMUTE_URL: server.url, TRANSMUTE_API_KEY: key },
            stdio: ['ignore', 'pipe', 'pipe'],
          },
        );
        let out = '';
        child.stdout.on('data', (chunk) => (out += chunk));
        child.stderr.on('data', (chunk) => (out += chunk));
        const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
        expect(code, out).toBe(0);
        expect(out).toMatch(/accepted .+: 3 credits/);
        expect(await readFile(path.join(dir, 'example-converted.md'), 'utf8')).toBe('# Converted\n\nFROM A SCRIPT\n');
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  });
});
