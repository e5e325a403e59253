/**
 * Documents as data over HTTP: a real DOCX, PPTX, XLSX, HTML page and PDF (files nobody here
 * wrote, test/fixtures/documents/README.md) go in on POST /api/v1/convert and come back as the
 * document model (op=structure, `to` left out; checked against the JSON Schema the OpenAPI
 * document publishes), as Markdown (to=md) and as chunks (op=chunk) within the token limit; and
 * `{"op": "structure"}` as a pipeline step.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createTransmuteClient } from '../apps/server/trpc/client.js';
import {
  ROOT,
  authHeaders,
  convertAndDownload,
  download,
  startServer,
  submitConvert,
  waitForJob,
  type TestServer,
} from './helpers.js';

const FIXTURES = path.join(ROOT, 'test/fixtures/documents');
const PDF = path.join(ROOT, 'plugins/markdown/testing/fixtures/real/geradwp-fr-p1-3.pdf');

interface Case {
  file: string;
  /** Text the model must hold, as a heading (level, text) or anywhere in a node. */
  headings: [number, string][];
  texts: string[];
  /** Lines the Markdown must hold. */
  markdown: string[];
}

const CASES: Record<string, Case> = {
  docx: {
    file: path.join(FIXTURES, 'heading123.docx'),
    headings: [
      [1, 'First paragraph'],
      [2, 'Second paragraph'],
      [3, 'Third paragraph'],
    ],
    texts: ['Pellentesque tristique scelerisque libero ut sagittis.'],
    markdown: ['# First paragraph', '## Second paragraph', '### Third paragraph'],
  },
  pptx: {
    file: path.join(FIXTURES, 'SampleShow.pptx'),
    headings: [],
    texts: ['It has bullet points on it', 'I am the notes of the first slide'],
    markdown: ['## Title of the first slide', '## This is the second slide', '- It has bullet points on it'],
  },
  xlsx: {
    file: path.join(FIXTURES, 'SampleSS.xlsx'),
    headings: [],
    texts: ['2nd row 2nd column', 'cb=sum', '13'],
    markdown: ['## First Sheet', '## Sheet Number 2', '| cb=1 | cb=10 | cb=2 | cb=sum |', '| 1 | 10 | 2 | 13 |'],
  },
  html: {
    file: path.join(FIXTURES, 'users-and-groups.html'),
    headings: [
      [1, 'Users and Groups in the Debian System'],
      [1, 'Chapter 1. Introduction'],
    ],
    texts: ['The Debian base-passwd package contains the master versions of /etc/passwd and /etc/group.'],
    markdown: ['# Chapter 1. Introduction'],
  },
  pdf: {
    file: PDF,
    headings: [],
    texts: [],
    markdown: ['<!-- page 1 -->', '<!-- page 3 -->'],
  },
};

/** Every node's text, depth first. */
function texts(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) for (const item of node) texts(item, out);
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if ((key === 'text' || key === 'title' || key === 'caption') && typeof value === 'string') out.push(value);
      else if (typeof value === 'object') texts(value, out);
    }
  }
  return out;
}

function headingsOf(document: any): [number, string][] {
  const out: [number, string][] = [];
  const walk = (blocks: any[]) => {
    for (const block of blocks) {
      if (block.type === 'heading') out.push([block.level, block.text]);
      if (block.type === 'section') walk(block.children);
      if (block.type === 'list') for (const item of block.items) walk(item.children ?? []);
    }
  };
  walk(document.body);
  return out;
}

const words = (text: string) => text.split(/\s+/).filter(Boolean).length;

describe('documents as data over HTTP', () => {
  let server: TestServer;
  let key: string;
  let validateDocument: (value: unknown) => { success: boolean; error?: unknown };

  beforeAll(async () => {
    server = await startServer();
    key = await server.createKey('pro');
    // The published schema: OpenAPI's Document component with the components it refers to.
    const openapi = (await (await fetch(`${server.url}/api/openapi.json`)).json()) as any;
    const schemas = JSON.parse(
      JSON.stringify(openapi.components.schemas).replaceAll('#/components/schemas/', '#/$defs/'),
    ) as Record<string, any>;
    expect(schemas.Document).toBeDefined();
    expect(schemas.ChunkList).toBeDefined();
    const published = z.fromJSONSchema({ ...schemas.Document, $defs: schemas });
    validateDocument = (value) => published.safeParse(value);
  }, 120_000);
  afterAll(async () => {
    await server?.close();
  });

  for (const [kind, spec] of Object.entries(CASES)) {
    it(`${kind}: op=structure without 'to' gives the model, valid against the published schema`, async () => {
      const submitted = await submitConvert(server.url, key, spec.file, { op: 'structure' });
      expect(submitted.status, JSON.stringify(submitted.body)).toBe(200);
      const job = (await waitForJob(server.url, key, submitted.body.jobId, 120_000)) as any;
      expect(job.status, job.error).toBe('done');
      const model = job.result;
      expect(model.schemaVersion).toBe('1.0');
      expect(model.source.format).toBe(kind);
      const checked = validateDocument(model);
      expect(checked.success, JSON.stringify(checked.error)).toBe(true);
      // The download is the same model as a JSON file.
      const got = await download(job.downloadUrl);
      expect(got.status).toBe(200);
      expect(got.headers.get('content-disposition')).toMatch(/\.json"/);
      expect(JSON.parse(got.data.toString('utf8'))).toEqual(model);
      for (const heading of spec.headings) expect(headingsOf(model)).toContainEqual(heading);
      const all = texts(model.body).join('\n');
      for (const text of spec.texts) expect(all).toContain(text);
      // Ids are unique.
      const ids = JSON.stringify(model).match(/"id":"[^"]+"/g) ?? [];
      expect(new Set(ids).size).toBe(ids.length);
      if (kind === 'pptx') {
        expect(model.body.map((s: any) => [s.type, s.kind, s.number, s.title])).toEqual([
          ['section', 'slide', 1, 'Title of the first slide'],
          ['section', 'slide', 2, 'This is the second slide'],
        ]);
        expect(texts(model.body[0].notes)).toEqual(['I am the notes of the first slide']);
      }
      if (kind === 'xlsx') {
        const table = model.body[1].children[0];
        expect(table.rows.at(-1).map((c: any) => c.text)).toEqual(['1', '10', '2', '13']);
      }
      if (kind === 'pdf') {
        expect(model.pages).toHaveLength(3);
        // The folios the engine sets apart are furniture, never body text.
        expect(model.furniture.length).toBeGreaterThan(0);
        expect(model.body.every((b: any) => b.page >= 1 && b.page <= 3)).toBe(true);
        expect(headingsOf(model).length).toBeGreaterThan(0);
      }
    }, 180_000);

    it(`${kind}: to=md is rendered from the model`, async () => {
      const { data, filename } = await convertAndDownload(server.url, key, spec.file, { to: 'md' }, 120_000);
      expect(path.extname(filename)).toBe('.md');
      const markdown = data.toString('utf8');
      for (const line of spec.markdown) expect(markdown.split('\n')).toContain(line);
    }, 180_000);

    it(`${kind}: op=chunk keeps every chunk within maxTokens, with its heading path, served as JSONL`, async () => {
      const maxTokens = 40;
      const submitted = await submitConvert(server.url, key, spec.file, {
        op: 'chunk',
        maxTokens: String(maxTokens),
        tokenizer: 'words',
      });
      expect(submitted.status, JSON.stringify(submitted.body)).toBe(200);
      const job = (await waitForJob(server.url, key, submitted.body.jobId, 120_000)) as any;
      expect(job.status, job.error).toBe('done');
      const { chunks } = job.result;
      expect(chunks.length).toBeGreaterThan(0);
      for (const chunk of chunks) {
        expect(chunk.tokens).toBeLessThanOrEqual(maxTokens);
        expect(words(chunk.text)).toBe(chunk.tokens);
        expect(chunk.text.startsWith(chunk.headings.join('\n'))).toBe(true);
        expect(chunk.nodes.length).toBeGreaterThan(0);
      }
      const got = await download(job.downloadUrl);
      const lines = got.data
        .toString('utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      expect(lines).toEqual(chunks);
      if (kind === 'docx') {
        const under = chunks.find((c: any) => c.content.includes('Pellentesque tristique'));
        expect(under.headings).toEqual(['First paragraph', 'Second paragraph']);
      }
      if (kind === 'pdf') expect(chunks.every((c: any) => c.pages.first >= 1 && c.pages.last <= 3)).toBe(true);
    }, 180_000);
  }

  it('runs {"op": "structure"} as a pipeline step after a conversion', async () => {
    const form = new FormData();
    form.append('pipeline', JSON.stringify({ steps: [{ op: 'structure' }] }));
    form.append('file', new Blob([new Uint8Array(await readFile(CASES.docx!.file))]), 'heading123.docx');
    const res = await fetch(`${server.url}/api/v1/pipelines`, {
      method: 'POST',
      body: form,
      headers: authHeaders(key),
    });
    const accepted = (await res.json()) as any;
    expect(res.status, JSON.stringify(accepted)).toBe(200);
    const job = (await waitForJob(server.url, key, accepted.jobId, 120_000)) as any;
    expect(job.status, job.error).toBe('done');
    expect(headingsOf(job.result)).toContainEqual([1, 'First paragraph']);
  }, 180_000);

  it('answers op=structure and op=chunk on GraphQL (to: "json") and tRPC (to left out) with the same' +
    ' model', async () => {
    const data = await readFile(CASES.pptx!.file);
    const form = new FormData();
    form.append(
      'operations',
      JSON.stringify({
        query:
          'mutation Convert($file: Upload!, $to: String!, $op: String) { convert(file: $file, to: $to, op: $op)' +
          ' { jobId } }',
        variables: { file: null, to: 'json', op: 'structure' },
      }),
    );
    form.append('map', JSON.stringify({ 0: ['variables.file'] }));
    form.append('0', new Blob([new Uint8Array(data)]), 'SampleShow.pptx');
    const res = await fetch(`${server.url}/graphql`, { method: 'POST', body: form, headers: authHeaders(key) });
    const answer = (await res.json()) as any;
    expect(answer.errors, JSON.stringify(answer.errors)).toBeUndefined();
    const viaGraphql = (await waitForJob(server.url, key, answer.data.convert.jobId, 120_000)) as any;
    expect(viaGraphql.status, viaGraphql.error).toBe('done');
    const polled = (await (
      await fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...authHeaders(key) },
        body: JSON.stringify({ query: `{ job(id: "${answer.data.convert.jobId}") { status result } }` }),
      })
    ).json()) as any;
    expect(polled.data.job.result).toEqual(viaGraphql.result);
    expect(validateDocument(polled.data.job.result).success).toBe(true);

    const trpc = createTransmuteClient(server.url, key);
    const trpcForm = new FormData();
    trpcForm.append('op', 'chunk');
    trpcForm.append('options', JSON.stringify({ maxTokens: 32 }));
    trpcForm.append('file', new Blob([new Uint8Array(data)]), 'SampleShow.pptx');
    const accepted = await trpc.convert.mutate(trpcForm);
    const viaTrpc = (await waitForJob(server.url, key, accepted.jobId, 120_000)) as any;
    expect(viaTrpc.status, viaTrpc.error).toBe('done');
    const job = (await trpc.jobs.get.query({ jobId: accepted.jobId })) as any;
    expect(job.result.chunks.length).toBeGreaterThan(0);
    for (const chunk of job.result.chunks) expect(chunk.tokens).toBeLessThanOrEqual(32);
    expect(job.result.chunks.some((c: any) => c.headings[0] === 'This is the second slide')).toBe(true);
  }, 180_000);

  it("refuses op=structure on a format no reader takes, and a 'to' the op cannot give", async () => {
    const png = { name: 'x.png', data: Buffer.from('89504e470d0a1a0a', 'hex') };
    const refused = await submitConvert(server.url, key, png, { op: 'structure' });
    expect(refused.status).toBe(400);
    const wrongTo = await submitConvert(server.url, key, CASES.docx!.file, { op: 'structure', to: 'pdf' });
    expect(wrongTo.status).toBe(400);
    expect(wrongTo.body.error).toMatch(/'to'/);
  });
});
