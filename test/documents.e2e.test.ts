/**
 * Documents as data over HTTP: a real DOCX, PPTX, XLSX, HTML page and PDF (files nobody here
 * wrote, test/fixtures/documents/README.md) go in on POST /api/v1/convert and come back as the
 * document model (op=structure, `to` left out; checked against the JSON Schema the OpenAPI
 * document publishes), as Markdown (to=md) and as chunks (op=chunk) within the token limit; and
 * the same on GraphQL (the model as typed nodes, the chunks as a typed list), on tRPC, and as pipelines
 * ending in {"op": "structure"}, {"to": "md"} and {"op": "chunk"}; chunks are counted with the real
 * cl100k encoder (js-tiktoken) as well as in words.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Tiktoken } from 'js-tiktoken/lite';
import cl100kRanks from 'js-tiktoken/ranks/cl100k_base';
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

const cl100k = new Tiktoken(cl100kRanks);
const cl100kTokens = (text: string) => cl100k.encode(text, [], []).length;

/** What the model of each case must hold beyond its headings and texts. */
function expectModel(kind: string, model: any) {
  expect(model.schemaVersion).toBe('1.0');
  expect(model.source.format).toBe(kind);
  const spec = CASES[kind]!;
  for (const heading of spec.headings) expect(headingsOf(model)).toContainEqual(heading);
  const all = texts(model.body).join('\n');
  for (const text of spec.texts) expect(all).toContain(text);
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
}

function expectMarkdown(spec: Case, markdown: string) {
  for (const line of spec.markdown) expect(markdown.split('\n')).toContain(line);
}

/** Chunks within maxTokens as `count` counts them, each starting with its heading path. */
function expectChunks(kind: string, chunks: any[], maxTokens: number, count: (text: string) => number) {
  expect(chunks.length).toBeGreaterThan(0);
  for (const chunk of chunks) {
    expect(count(chunk.text), chunk.text).toBeLessThanOrEqual(maxTokens);
    expect(chunk.tokens).toBe(count(chunk.text));
    expect(chunk.text.startsWith(chunk.headings.join('\n'))).toBe(true);
    expect(chunk.nodes.length).toBeGreaterThan(0);
  }
  if (kind === 'docx') {
    const under = chunks.find((c: any) => c.content.includes('Pellentesque tristique'));
    expect(under.headings).toEqual(['First paragraph', 'Second paragraph']);
  }
  if (kind === 'pptx') expect(chunks.some((c: any) => c.headings[0] === 'This is the second slide')).toBe(true);
  if (kind === 'pdf') expect(chunks.every((c: any) => c.pages.first >= 1 && c.pages.last <= 3)).toBe(true);
}

/**
 * The typed GraphQL selection of the model: a block's own fields (BLOCK), at the top and inside
 * slides, sheets and list items. The server bounds a selection's depth at 10 (inline fragments count,
 * a fragment spread twice), so BLOCK is written out in place, and a list item's box is out of reach.
 */
const BLOCK = `__typename
  ... on DocumentNode { id page box { x0 y0 x1 y1 } }
  ... on DocumentHeading { level text }
  ... on DocumentParagraph { text }
  ... on DocumentCode { text language }
  ... on DocumentFormula { text }
  ... on DocumentFootnote { label text }
  ... on DocumentFigure { caption alt image { mime data } }
  ... on DocumentTable { headerRows caption name rows { text rowSpan colSpan header } }
  ... on DocumentList { ordered start items { id page text } }
  ... on DocumentSection { kind number title }`;
const JOB_QUERY = `query Job($id: ID!) { job(id: $id) {
  status error downloadUrl result
  document { schemaVersion source { format filename } title pages { number width height }
    body { ${BLOCK}
      ... on DocumentSection { children { ${BLOCK} } notes { ${BLOCK} } }
      ... on DocumentList { items { children { ${BLOCK} } } } }
    furniture { __typename ... on DocumentNode { id page box { x0 y0 x1 y1 } }
      ... on DocumentPageHeader { text } ... on DocumentPageFooter { text } } }
  chunks { index text content tokens headings pages { first last } nodes }
} }`;

/** The model as JOB_QUERY can select it: list items without their box. */
function selectable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(selectable);
  if (!value || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value))
    if (key === 'items' && Array.isArray(field))
      out.items = field.map(({ box: _box, ...item }: Record<string, unknown>) => selectable(item));
    else out[key] = selectable(field);
  return out;
}

const TYPE_OF: Record<string, string> = {
  DocumentPageHeader: 'pageHeader',
  DocumentPageFooter: 'pageFooter',
  DocumentListItem: '',
};
/** A typed GraphQL answer as the model's JSON: `__typename` back to `type`, null fields left out. */
function untyped(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(untyped);
  if (!value || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    if (field === null) continue;
    if (key === '__typename') {
      const type = TYPE_OF[field as string] ?? (field as string).replace(/^Document/, '').toLowerCase();
      if (type) out.type = type;
    } else out[key] = untyped(field);
  }
  return out;
}

describe('documents as data over HTTP', () => {
  let server: TestServer;
  /** A fresh key per test: each key polls at a bounded rate (120 requests a minute). */
  let key: string;
  let validateDocument: (value: unknown) => { success: boolean; error?: unknown };

  beforeAll(async () => {
    server = await startServer();
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
  beforeEach(async () => {
    key = await server.createKey('pro');
  });
  afterAll(async () => {
    await server?.close();
  });

  /** A GraphQL convert (multipart upload) of `file`: its jobId. */
  async function graphqlConvert(file: string, variables: Record<string, unknown>): Promise<string> {
    const form = new FormData();
    form.append(
      'operations',
      JSON.stringify({
        query:
          'mutation Convert($file: Upload!, $to: String!, $op: String, $options: ConvertOptions) {' +
          ' convert(file: $file, to: $to, op: $op, options: $options) { jobId } }',
        variables: { file: null, ...variables },
      }),
    );
    form.append('map', JSON.stringify({ 0: ['variables.file'] }));
    form.append('0', new Blob([new Uint8Array(await readFile(file))]), path.basename(file));
    const res = await fetch(`${server.url}/graphql`, { method: 'POST', body: form, headers: authHeaders(key) });
    const answer = (await res.json()) as any;
    expect(answer.errors, JSON.stringify(answer.errors)).toBeUndefined();
    return answer.data.convert.jobId;
  }

  /** The job once finished, asked for over GraphQL with the typed model and chunks. */
  async function graphqlJob(jobId: string): Promise<any> {
    await waitForJob(server.url, key, jobId, 180_000);
    const res = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...authHeaders(key) },
      body: JSON.stringify({ query: JOB_QUERY, variables: { id: jobId } }),
    });
    const answer = (await res.json()) as any;
    expect(answer.errors, JSON.stringify(answer.errors)).toBeUndefined();
    return answer.data.job;
  }

  for (const [kind, spec] of Object.entries(CASES)) {
    it(`${kind}: op=structure without 'to' gives the model, valid against the published schema`, async () => {
      const submitted = await submitConvert(server.url, key, spec.file, { op: 'structure' });
      expect(submitted.status, JSON.stringify(submitted.body)).toBe(200);
      const job = (await waitForJob(server.url, key, submitted.body.jobId, 120_000)) as any;
      expect(job.status, job.error).toBe('done');
      const model = job.result;
      const checked = validateDocument(model);
      expect(checked.success, JSON.stringify(checked.error)).toBe(true);
      // The download is the same model as a JSON file.
      const got = await download(job.downloadUrl);
      expect(got.status).toBe(200);
      expect(got.headers.get('content-disposition')).toMatch(/\.json"/);
      expect(JSON.parse(got.data.toString('utf8'))).toEqual(model);
      expectModel(kind, model);
      // Ids are unique.
      const ids = JSON.stringify(model).match(/"id":"[^"]+"/g) ?? [];
      expect(new Set(ids).size).toBe(ids.length);
    }, 180_000);

    it(`${kind}: to=md is rendered from the model`, async () => {
      const { data, filename } = await convertAndDownload(server.url, key, spec.file, { to: 'md' }, 120_000);
      expect(path.extname(filename)).toBe('.md');
      expectMarkdown(spec, data.toString('utf8'));
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
      expectChunks(kind, chunks, maxTokens, words);
      const got = await download(job.downloadUrl);
      const lines = got.data
        .toString('utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      expect(lines).toEqual(chunks);
    }, 180_000);
  }

  for (const [kind, spec] of Object.entries(CASES)) {
    it(`${kind}: GraphQL gives the model as typed nodes, Markdown, and typed chunks within the limit`, async () => {
      const maxTokens = 48;
      const [structure, markdown, chunked] = await Promise.all([
        graphqlConvert(spec.file, { to: 'json', op: 'structure' }),
        graphqlConvert(spec.file, { to: 'md' }),
        graphqlConvert(spec.file, {
          to: 'jsonl',
          op: 'chunk',
          options: { [kind === 'pdf' ? 'pdfChunk' : 'documentChunk']: { maxTokens } },
        }),
      ]);
      // The model: typed (inline fragments on the node union) and as the JSON result, the same tree.
      const typed = await graphqlJob(structure);
      expect(typed.status, typed.error).toBe('done');
      expect(validateDocument(typed.result).success).toBe(true);
      expect(untyped(typed.document)).toEqual(selectable(typed.result));
      expect(typed.chunks).toBeNull();
      for (const heading of spec.headings) expect(headingsOf(typed.result)).toContainEqual(heading);
      expectModel(kind, typed.result);
      // Markdown rendered from the model.
      const md = await graphqlJob(markdown);
      expect(md.status, md.error).toBe('done');
      expectMarkdown(spec, (await download(md.downloadUrl)).data.toString('utf8'));
      // Chunks: typed, each within maxTokens counted by the real cl100k encoder.
      const chunks = await graphqlJob(chunked);
      expect(chunks.status, chunks.error).toBe('done');
      expect(chunks.document).toBeNull();
      expect(untyped(chunks.chunks)).toEqual(chunks.result.chunks);
      expectChunks(kind, chunks.result.chunks, maxTokens, cl100kTokens);
    }, 300_000);

    it(`${kind}: tRPC gives the model, Markdown and chunks within the limit ('to' left out for the ops)`, async () => {
      const trpc = createTransmuteClient(server.url, key);
      const data = new Uint8Array(await readFile(spec.file));
      const submit = (fields: Record<string, string>) => {
        const form = new FormData();
        for (const [name, value] of Object.entries(fields)) form.append(name, value);
        form.append('file', new Blob([data]), path.basename(spec.file));
        return trpc.convert.mutate(form);
      };
      const maxTokens = 40;
      const accepted = await Promise.all([
        submit({ op: 'structure' }),
        submit({ to: 'md' }),
        submit({ op: 'chunk', options: JSON.stringify({ maxTokens, tokenizer: 'cl100k' }) }),
      ]);
      const [structure, markdown, chunked] = await Promise.all(
        accepted.map(async ({ jobId }) => {
          await waitForJob(server.url, key, jobId, 180_000);
          return (await trpc.jobs.get.query({ jobId })) as any;
        }),
      );
      expect(structure.status, structure.error).toBe('done');
      expect(validateDocument(structure.result).success).toBe(true);
      expectModel(kind, structure.result);
      expect(markdown.status, markdown.error).toBe('done');
      expectMarkdown(spec, (await download(markdown.downloadUrl)).data.toString('utf8'));
      expect(chunked.status, chunked.error).toBe('done');
      expectChunks(kind, chunked.result.chunks, maxTokens, cl100kTokens);
    }, 300_000);

    it(`${kind}: pipelines end in {"op": "structure"}, {"to": "md"} and {"op": "chunk"}`, async () => {
      const maxTokens = 32;
      const data = new Uint8Array(await readFile(spec.file));
      const submit = async (steps: unknown[]) => {
        const form = new FormData();
        form.append('pipeline', JSON.stringify({ steps }));
        form.append('file', new Blob([data]), path.basename(spec.file));
        const res = await fetch(`${server.url}/api/v1/pipelines`, {
          method: 'POST',
          body: form,
          headers: authHeaders(key),
        });
        const accepted = (await res.json()) as any;
        expect(res.status, JSON.stringify(accepted)).toBe(200);
        return (await waitForJob(server.url, key, accepted.jobId, 180_000)) as any;
      };
      const [structure, markdown, chunked] = await Promise.all([
        submit([{ op: 'structure' }]),
        submit([{ to: 'md' }]),
        submit([{ op: 'chunk', maxTokens }]),
      ]);
      expect(structure.status, structure.error).toBe('done');
      expect(validateDocument(structure.result).success).toBe(true);
      expectModel(kind, structure.result);
      expect(markdown.status, markdown.error).toBe('done');
      expectMarkdown(spec, (await download(markdown.downloadUrl)).data.toString('utf8'));
      expect(chunked.status, chunked.error).toBe('done');
      expectChunks(kind, chunked.result.chunks, maxTokens, cl100kTokens);
    }, 300_000);
  }

  it("refuses op=structure on a format no reader takes, and a 'to' the op cannot give", async () => {
    const png = { name: 'x.png', data: Buffer.from('89504e470d0a1a0a', 'hex') };
    const refused = await submitConvert(server.url, key, png, { op: 'structure' });
    expect(refused.status).toBe(400);
    const wrongTo = await submitConvert(server.url, key, CASES.docx!.file, { op: 'structure', to: 'pdf' });
    expect(wrongTo.status).toBe(400);
    expect(wrongTo.body.error).toMatch(/'to'/);
  });
});
