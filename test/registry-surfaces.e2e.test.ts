/**
 * The registry drives every surface. A third-party extract plugin loaded with PLUGINS= (the
 * word-count fixture) gets its REST endpoints, GraphQL mutation and query, tRPC procedure and
 * OpenAPI entries from its manifest alone, with the limits and trial rule it declares; batches
 * take an op's options on GraphQL and tRPC as REST does; one capabilities service answers the
 * formats on all three surfaces and /readyz.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { TRPCClientError } from '@trpc/client';
import { PDFDocument } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTransmuteClient, type TransmuteClient } from '../apps/server/trpc/client.js';
import { ROOT, authHeaders, getJson, startServer, type TestServer } from './helpers.js';

const WORD_COUNT = path.join(ROOT, 'test/fixtures/plugins/word-count.ts');
const MISSING_ENGINE = path.join(ROOT, 'test/fixtures/plugins/missing-engine.ts');

type Upload = { name: string; data: Buffer | string };
type GraphQLBody = {
  data?: Record<string, any> | null;
  errors?: Array<{ message: string; extensions?: Record<string, unknown> }>;
};

const text = (name: string, data: string): Upload => ({ name, data });
const blob = ({ data }: Upload) => new Blob([typeof data === 'string' ? data : new Uint8Array(data)]);

/** A GraphQL operation; with `files`, as a multipart request whose `$files` variable lists them. */
async function graphql(
  url: string,
  key: string,
  query: string,
  variables: Record<string, unknown> = {},
  files?: Upload[],
): Promise<GraphQLBody> {
  if (!files) {
    const res = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...authHeaders(key) },
      body: JSON.stringify({ query, variables }),
    });
    return (await res.json()) as GraphQLBody;
  }
  const body = new FormData();
  body.append('operations', JSON.stringify({ query, variables: { ...variables, files: files.map(() => null) } }));
  body.append('map', JSON.stringify(Object.fromEntries(files.map((_, i) => [String(i), [`variables.files.${i}`]]))));
  for (const [i, file] of files.entries()) body.append(String(i), blob(file), file.name);
  return (await (
    await fetch(`${url}/graphql`, { method: 'POST', body, headers: authHeaders(key) })
  ).json()) as GraphQLBody;
}

/** Repeated `files` plus text fields: the REST and tRPC form. */
function form(files: Upload[], fields: Record<string, string> = {}): FormData {
  const body = new FormData();
  for (const [name, value] of Object.entries(fields)) body.append(name, value);
  for (const file of files) body.append('files', blob(file), file.name);
  return body;
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (let i = 0; i < 600; i++) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('timed out');
}

async function trpcError(call: Promise<unknown>): Promise<{ message: string; code?: string; reason?: string }> {
  try {
    await call;
  } catch (error) {
    if (!(error instanceof TRPCClientError)) throw error;
    return { message: error.message, ...(error.data as { code?: string; reason?: string }) };
  }
  throw new Error('the call succeeded');
}

/** The procedure of a tool the typed client does not know (AppRouter names the spec's tools): served all the same. */
type ExtractionProcedure = {
  mutate(form: FormData): Promise<{ batchId: string; total: number; errors: unknown[]; statusUrl: string }>;
};
const procedureOf = (client: TransmuteClient, name: string) =>
  (client.extraction as unknown as Record<string, ExtractionProcedure>)[name]!;

describe('the registry drives every surface', () => {
  let server: TestServer;
  let key: string;
  let trpc: TransmuteClient;

  beforeAll(async () => {
    server = await startServer({ env: { PLUGINS: `${WORD_COUNT},${MISSING_ENGINE}` } });
    key = await server.createKey('pro');
    trpc = createTransmuteClient(server.url, key);
  });
  afterAll(() => server.close());

  describe('a third-party extract plugin (word-count, loaded with PLUGINS=)', () => {
    const poem = text('poem.txt', 'The quick brown fox jumps over the lazy dog');
    const note = text('note.txt', 'Short note, with punctuation!');
    const WORD_COUNT_MUTATION = `mutation Count($files: [Upload!]!, $minLength: Int, $unit: TestWordCountOptionsUnit) {
      wordCount(files: $files, minLength: $minLength, unit: $unit) { batchId total errors { filename error } }
    }`;
    const EXTRACTION =
      `query Extraction($id: ID!) {
      extraction(tool: "word-count", id: $id) { done total completed failed totalHits summary rows { filename ` +
      `status error data ... on WordCountRow { words count longest } } }
    }`;

    it(
      'REST: POST /api/word-count and GET /api/word-count/{id}, options decoded from the form, rows and the ' +
        'declared total',
      async () => {
        const res = await fetch(`${server.url}/api/word-count`, {
          method: 'POST',
          body: form([poem, note, text('table.csv', 'a,b\n1,2\n')], { minLength: '4' }),
          headers: authHeaders(key),
        });
        const accepted = (await res.json()) as { batchId: string; statusUrl: string };
        expect(res.status).toBe(200);
        expect(accepted).toEqual({
          batchId: expect.any(String),
          total: 2,
          statusUrl: `/api/word-count/${accepted.batchId}`,
          errors: [{ filename: 'table.csv', error: 'Word count (test) does not read .csv files' }],
        });
        const done = await until(
          async () => (await getJson(`${server.url}${accepted.statusUrl}`, key)).body,
          (poll) => poll.done,
        );
        expect(done).toEqual({
          done: true,
          total: 2,
          completed: 2,
          failed: 0,
          totalWords: 9,
          rows: [
            { filename: 'poem.txt', status: 'completed', words: 5, count: 5, longest: 'quick' },
            { filename: 'note.txt', status: 'completed', words: 4, count: 4, longest: 'punctuation' },
          ],
        });
        // Charged per file, as the spec's tools (a text file is 3 credits).
        expect((await getJson(`${server.url}/api/v1/credits`, key)).body.creditsUsed).toBe(6);
        const bad = await fetch(`${server.url}/api/word-count`, {
          method: 'POST',
          body: form([poem], { minLength: 'four' }),
          headers: authHeaders(key),
        });
        expect(bad.status).toBe(400);
      },
    );

    it(
      'GraphQL: the wordCount mutation with the generated option types as arguments, and extraction(tool, ' + 'id)',
      async () => {
        const accepted = await graphql(server.url, key, WORD_COUNT_MUTATION, { minLength: 5, unit: 'letters' }, [poem]);
        expect(accepted.errors).toBeUndefined();
        expect(accepted.data!.wordCount).toEqual({ batchId: expect.any(String), total: 1, errors: [] });
        const done = await until(
          async () =>
            (await graphql(server.url, key, EXTRACTION, { id: accepted.data!.wordCount.batchId })).data!.extraction,
          (poll) => poll.done,
        );
        expect(done).toEqual({
          done: true,
          total: 1,
          completed: 1,
          failed: 0,
          totalHits: null,
          summary: { totalWords: 3 },
          rows: [
            {
              filename: 'poem.txt',
              status: 'completed',
              error: null,
              data: { words: 3, count: 15, longest: 'quick' },
              // Typed from the row zod of its manifest.
              words: 3,
              count: 15,
              longest: 'quick',
            },
          ],
        });

        // The arguments are the fields of the generated TestWordCountOptions, defaults included.
        const introspect = (name: string) =>
          graphql(server.url, key, `{ __type(name: "${name}") { inputFields { name defaultValue type { name } } } }`);
        const mutations = await graphql(
          server.url,
          key,
          '{ __schema { mutationType { fields { name args { name defaultValue type { name kind ofType { name } } } } ' +
            '} ' +
            '} }',
        );
        const wordCount = mutations.data!.__schema.mutationType.fields.find(
          (f: { name: string }) => f.name === 'wordCount',
        );
        const { inputFields } = (await introspect('TestWordCountOptions')).data!.__type;
        expect(inputFields).toEqual([
          { name: 'minLength', defaultValue: '1', type: { name: 'Int' } },
          { name: 'unit', defaultValue: 'words', type: { name: 'TestWordCountOptionsUnit' } },
        ]);
        expect(
          wordCount.args.map((a: { name: string; defaultValue: string | null; type: { name: string | null } }) => [
            a.name,
            a.defaultValue,
            a.type.name,
          ]),
        ).toEqual([
          ['files', null, null],
          ['minLength', '1', 'Int'],
          ['unit', 'words', 'TestWordCountOptionsUnit'],
          ['webhookUrl', null, 'String'],
        ]);
        const bad = await graphql(server.url, key, WORD_COUNT_MUTATION, { minLength: 0 }, [poem]);
        expect(bad.errors?.[0]).toMatchObject({
          message: expect.stringMatching(/minLength/),
          extensions: { code: 'BAD_USER_INPUT' },
        });
      },
    );

    it('tRPC: extraction.wordCount and extraction.get, the REST rows', async () => {
      const accepted = await procedureOf(trpc, 'wordCount').mutate(form([note, poem], { minLength: '5' }));
      expect(accepted).toEqual({
        batchId: expect.any(String),
        total: 2,
        errors: [],
        statusUrl: `/api/word-count/${accepted.batchId}`,
      });
      const done = await until(
        () => trpc.extraction.get.query({ tool: 'word-count', batchId: accepted.batchId }),
        (poll) => poll.done,
      );
      expect(done).toMatchObject({
        total: 2,
        completed: 2,
        totalWords: 5,
        rows: [
          { filename: 'note.txt', words: 2 },
          { filename: 'poem.txt', words: 3 },
        ],
      });
      expect(done).toEqual((await getJson(`${server.url}${accepted.statusUrl}`, key)).body);
    });

    it('applies its declared rules on every surface: at most 3 files, Pro and up, no free try', async () => {
      const four = [poem, note, poem, note];
      const rest = await fetch(`${server.url}/api/word-count`, {
        method: 'POST',
        body: form(four),
        headers: authHeaders(key),
      });
      expect({ status: rest.status, body: await rest.json() }).toEqual({
        status: 400,
        body: { error: 'At most 3 files per word-count request' },
      });
      expect((await graphql(server.url, key, WORD_COUNT_MUTATION, {}, four)).errors?.[0]).toMatchObject({
        message: 'At most 3 files per word-count request',
        extensions: { code: 'BAD_USER_INPUT' },
      });
      expect(await trpcError(procedureOf(trpc, 'wordCount').mutate(form(four)))).toMatchObject({
        code: 'BAD_REQUEST',
        message: 'At most 3 files per word-count request',
      });

      // No free try: a Free key is refused at the plan gate (the spec's tools would give it one file).
      const freeKey = await server.createKey('free');
      const refused = await fetch(`${server.url}/api/word-count`, {
        method: 'POST',
        body: form([poem]),
        headers: authHeaders(freeKey),
      });
      expect(refused.status).toBe(403);
      expect(await refused.json()).toMatchObject({ error: 'Word count (test) requires the Pro plan or higher' });
      expect(
        (await graphql(server.url, freeKey, WORD_COUNT_MUTATION, {}, [poem])).errors?.[0]?.extensions,
      ).toMatchObject({ code: 'FORBIDDEN' });
      expect(
        await trpcError(procedureOf(createTransmuteClient(server.url, freeKey), 'wordCount').mutate(form([poem]))),
      ).toMatchObject({ code: 'FORBIDDEN' });
      expect((await getJson(`${server.url}/api/v1/credits`, freeKey)).body.creditsUsed).toBe(0);
    });

    it('OpenAPI documents its endpoints from the manifest', async () => {
      const { body } = await getJson(`${server.url}/api/openapi.json`, undefined);
      const submit = body.paths['/api/word-count'].post;
      expect(submit.summary).toBe('Word count (test) (Pro and up)');
      expect(submit.description).toMatch(/Up to 3 files.*Reads: txt\..*totalWords/);
      expect(submit.requestBody.content['multipart/form-data'].schema).toMatchObject({
        required: ['files'],
        properties: {
          files: { type: 'array', maxItems: 3 },
          minLength: { type: 'integer', minimum: 1, default: 1 },
          unit: { enum: ['words', 'letters'] },
        },
      });
      expect(body.paths['/api/word-count/{id}'].get.responses['200']).toMatchObject({
        content: { 'application/json': { schema: { $ref: '#/components/schemas/WordCountPoll' } } },
      });
      // Its rows typed by the row zod of its manifest.
      expect(body.components.schemas.WordCountPoll.properties.rows.items.properties).toMatchObject({
        filename: { type: 'string' },
        words: { type: 'integer' },
        longest: { type: 'string' },
      });
      expect(server.server.app.hasRoute({ method: 'POST', url: '/api/word-count' })).toBe(true);
      // The spec's tools sit beside it, documented from their own plugin (transcribe's is standard now;
      // a spec tool without a plugin is covered in core/registry/extraction.test.ts).
      expect(body.paths['/api/transcribe'].post.description).toMatch(/Up to 10 files/);
      expect(body.paths['/api/transcribe'].post.description).not.toMatch(/not installed/);
    });
  });

  describe('one capabilities service', () => {
    it('gives the same formats on REST, GraphQL and tRPC, and the same unavailable plugins to /readyz', async () => {
      const rest = (await getJson(`${server.url}/api/v1/formats`, key)).body;
      expect(await trpc.formats.list.query()).toEqual(rest);
      const gql = (
        await graphql(
          server.url,
          key,
          '{ formats { conversions { from to } operations { pluginId kind op available missingEngines } } }',
        )
      ).data!.formats;
      expect(gql.conversions).toEqual(Object.entries(rest.conversions).map(([from, to]) => ({ from, to })));
      expect(gql.operations).toEqual(
        rest.operations.map(({ pluginId, kind, op, available, missingEngines }: Record<string, unknown>) => ({
          pluginId,
          kind,
          op: op ?? null,
          available,
          missingEngines,
        })),
      );
      expect(rest.operations.find((o: { pluginId: string }) => o.pluginId === 'test-word-count')).toMatchObject({
        kind: 'extract',
        op: 'word-count',
        inputs: ['txt'],
        plan: 'pro',
        available: true,
      });

      const unavailable = rest.operations
        .filter((o: { available: boolean }) => !o.available)
        .map((o: { pluginId: string; missingEngines: string[] }) => ({
          plugin: o.pluginId,
          missing: o.missingEngines,
        }));
      expect(unavailable).toContainEqual({
        plugin: 'test-missing-engine',
        missing: ['transmute-test-no-such-engine (Debian transmute-test-no-such-package)'],
      });
      const ready = await getJson(`${server.url}/readyz`, undefined);
      expect(ready.status).toBe(503);
      expect(ready.body.unavailable).toEqual(unavailable);
    });
  });

  describe('batch options on GraphQL and tRPC, as REST', () => {
    const BATCH = `mutation Batch($files: [Upload!]!, $to: String!, $op: String, $options: ConvertOptions) {
      batchConvert(files: $files, to: $to, op: $op, options: $options) { batchId total errors { filename error } }
    }`;
    let pdfs: Upload[];
    let dir: string;

    beforeAll(async () => {
      dir = await mkdtemp(path.join(os.tmpdir(), 'transmute-batch-options-'));
      pdfs = await Promise.all(
        ['a.pdf', 'b.pdf'].map(async (name, i) => {
          const doc = await PDFDocument.create();
          for (let page = 0; page <= i; page++) doc.addPage([200, 300]);
          return { name, data: Buffer.from(await doc.save()) };
        }),
      );
    });
    afterAll(() => rm(dir, { recursive: true, force: true }));

    /** Each PDF of a finished batch's ZIP: its name, page count and the rotation of its pages (pdfinfo). */
    async function rotations(batchId: string): Promise<Array<[string, number, number[]]>> {
      const status = await until(
        async () => (await getJson(`${server.url}/api/batch/${batchId}`, key)).body,
        (b) => b.done,
      );
      const res = await fetch(status.downloadUrl, { headers: authHeaders(key) });
      const zip = path.join(dir, `${batchId}.zip`);
      await writeFile(zip, Buffer.from(await res.arrayBuffer()));
      const names = execFileSync('unzip', ['-Z1', zip], { encoding: 'utf8' }).trim().split('\n').sort();
      return names.map((name) => {
        const file = path.join(dir, `${batchId}-${name}`);
        execFileSync('sh', ['-c', 'unzip -p "$1" "$2" > "$3"', 'sh', zip, name, file]);
        const info = execFileSync('pdfinfo', ['-f', '1', '-l', '100', file], { encoding: 'utf8' });
        return [
          name,
          Number(/^Pages:\s+(\d+)/m.exec(info)![1]),
          [...info.matchAll(/^Page\s+\d+ rot:\s+(\d+)/gm)].map((m) => Number(m[1])),
        ];
      });
    }

    it('rotate-pdf: options.angle reaches every page, over GraphQL and tRPC', async () => {
      const gql = await graphql(
        server.url,
        key,
        BATCH,
        { to: 'pdf', op: 'rotate-pdf', options: { rotatePdf: { angle: 90 } } },
        pdfs,
      );
      expect(gql.errors).toBeUndefined();
      expect(gql.data!.batchConvert).toEqual({ batchId: expect.any(String), total: 2, errors: [] });
      const viaTrpc = await trpc.batch.convert.mutate(
        form(pdfs, { to: 'pdf', op: 'rotate-pdf', options: '{"angle":270}' }),
      );
      expect(viaTrpc).toMatchObject({ total: 2, errors: [] });

      expect(await rotations(gql.data!.batchConvert.batchId)).toEqual([
        ['a.pdf', 1, [90]],
        ['b.pdf', 2, [90, 90]],
      ]);
      expect(await rotations(viaTrpc.batchId)).toEqual([
        ['a.pdf', 1, [270]],
        ['b.pdf', 2, [270, 270]],
      ]);
    });

    it('refuses a missing or bad option like REST, and quality given twice', async () => {
      const rest = await fetch(`${server.url}/api/batch/convert`, {
        method: 'POST',
        body: form(pdfs, { to: 'pdf', op: 'rotate-pdf', angle: '45' }),
        headers: authHeaders(key),
      });
      const restError = ((await rest.json()) as { error: string }).error;
      expect(rest.status).toBe(400);
      const gql = await graphql(
        server.url,
        key,
        BATCH,
        { to: 'pdf', op: 'rotate-pdf', options: { rotatePdf: { angle: 45 } } },
        pdfs,
      );
      expect(gql.errors?.[0]).toMatchObject({ message: restError, extensions: { code: 'BAD_USER_INPUT' } });
      expect(
        await trpcError(
          trpc.batch.convert.mutate(form(pdfs, { to: 'pdf', op: 'rotate-pdf', options: '{"angle":45}' })),
        ),
      ).toMatchObject({ code: 'BAD_REQUEST', message: restError });

      const twice = await graphql(
        server.url,
        key,
        'mutation($files: [Upload!]!) { batchConvert(files: $files, to: "webp", quality: 60, options: {imageConvert: ' +
          '{quality: 50}}) { batchId } }',
        {},
        pdfs,
      );
      // One decoder for the options of every surface (operations/options.ts): one rule, one wording.
      const given = 'quality is given twice: in options and on its own';
      expect(twice.errors?.[0]).toMatchObject({ message: given, extensions: { code: 'BAD_USER_INPUT' } });
      expect(
        await trpcError(
          trpc.batch.convert.mutate(form(pdfs, { to: 'webp', quality: '60', options: '{"quality":50}' })),
        ),
      ).toMatchObject({ code: 'BAD_REQUEST', message: given });
    });
  });
});
