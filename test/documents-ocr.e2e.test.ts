/**
 * Images and scanned PDFs as data over HTTP, through OCR: a real 300 dpi scan (the LinnSequencer
 * brochure page, test/fixtures/documents/README.md) as PNG, as JPEG and as the image-only PDF
 * OCRmyPDF ships go in on POST /api/v1/convert and come back as the document model (headings,
 * paragraphs, with their page and a box within it, valid against the published schema), as
 * Markdown and as chunks; a file that is not the image it claims to be is refused with a message.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { expectBoxedWithinPages } from '../plugins/markdown/testing/boxes.js';
import { ROOT, convertAndDownload, startServer, submitConvert, waitForJob, type TestServer } from './helpers.js';

const FIXTURES = path.join(ROOT, 'test/fixtures/documents');
const PNG = path.join(FIXTURES, 'linn.png');
const SCANNED_PDF = path.join(FIXTURES, 'linn.pdf');

const TITLE = 'The LinnSequencer 32 Track MIDI Sequence Recorder';
/** The brochure's section headings: the left column's, then the right column's, then the full-width one. */
const LEFT = ['Recording a Sequence', 'Editing'];
const RIGHT = ['Creating a Song', 'Composition Without Compromise'];
const SENTENCES = [
  'The LinnSequencer is a state-of-the-art composition and performance tool for the professional musician.',
  'CREATE SONG will then automatically copy all the parts into a new sequence.',
];

const OCR_TIMEOUT_MS = 240_000;

describe('images and scans as data over HTTP', () => {
  let server: TestServer;
  let key: string;
  let dir: string;
  let validateDocument: (value: unknown) => { success: boolean; error?: unknown };

  beforeAll(async () => {
    server = await startServer();
    key = await server.createKey('pro');
    dir = await mkdtemp(path.join(os.tmpdir(), 'documents-ocr-'));
    const openapi = (await (await fetch(`${server.url}/api/openapi.json`)).json()) as any;
    const schemas = JSON.parse(
      JSON.stringify(openapi.components.schemas).replaceAll('#/components/schemas/', '#/$defs/'),
    ) as Record<string, any>;
    const published = z.fromJSONSchema({ ...schemas.Document, $defs: schemas });
    validateDocument = (value) => published.safeParse(value);
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  async function structure(file: string): Promise<any> {
    const submitted = await submitConvert(server.url, key, file, { op: 'structure' });
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(200);
    const job = (await waitForJob(server.url, key, submitted.body.jobId, OCR_TIMEOUT_MS)) as any;
    expect(job.status, job.error).toBe('done');
    const checked = validateDocument(job.result);
    expect(checked.success, JSON.stringify(checked.error)).toBe(true);
    return job.result;
  }

  const headingsOf = (model: any) => model.body.filter((b: any) => b.type === 'heading');

  /** The brochure's structure, wherever it came from: headings by level and column, text, boxes. */
  function expectBrochure(model: any): void {
    expect(model.pages).toEqual([{ number: 1, width: 612, height: 792 }]);
    expectBoxedWithinPages(model);
    const headings = headingsOf(model);
    expect(headings[0]).toMatchObject({ text: TITLE, page: 1 });
    const sections = headings.filter((h: any) => [...LEFT, ...RIGHT, 'Additional Features'].includes(h.text));
    expect(sections.map((h: any) => h.text)).toEqual([...LEFT, ...RIGHT, 'Additional Features']);
    // One level for the section headings, below the title's.
    expect(new Set(sections.map((h: any) => h.level)).size).toBe(1);
    expect(sections[0].level).toBeGreaterThan(headings[0].level);
    // The title is centred at the top; the columns' headings sit in their column, in reading order.
    const title = headings[0].box;
    expect(title.y1).toBeLessThan(100);
    expect(Math.abs((title.x0 + title.x1) / 2 - 306)).toBeLessThan(20);
    for (const heading of sections.filter((h: any) => LEFT.includes(h.text))) expect(heading.box.x1).toBeLessThan(306);
    for (const heading of sections.filter((h: any) => RIGHT.includes(h.text)))
      expect(heading.box.x0).toBeGreaterThan(306);
    const text = model.body.map((b: any) => b.text ?? '').join('\n');
    for (const sentence of SENTENCES) expect(text).toContain(sentence);
  }

  it(
    'PNG: op=structure gives headings and paragraphs with their page and boxes within it',
    async () => {
      const model = await structure(PNG);
      expect(model.source).toEqual({ format: 'png', filename: 'linn.png' });
      expectBrochure(model);
    },
    OCR_TIMEOUT_MS,
  );

  it(
    'scanned PDF: op=structure OCRs the page into the same model, boxes where the PNG has them',
    async () => {
      const [fromPdf, fromPng] = [await structure(SCANNED_PDF), await structure(PNG)];
      expect(fromPdf.source.format).toBe('pdf');
      expectBrochure(fromPdf);
      // The same scan placed on the same letter page: its headings land within a point or two.
      const boxes = (model: any) => new Map(headingsOf(model).map((h: any) => [h.text, h.box]));
      const [pdfBoxes, pngBoxes] = [boxes(fromPdf), boxes(fromPng)];
      for (const text of [TITLE, ...LEFT, ...RIGHT]) {
        const [a, b] = [pdfBoxes.get(text) as any, pngBoxes.get(text) as any];
        for (const edge of ['x0', 'y0', 'x1', 'y1'])
          expect(Math.abs(a[edge] - b[edge]), `${text} ${edge}`).toBeLessThan(2);
      }
    },
    2 * OCR_TIMEOUT_MS,
  );

  it(
    'JPEG: to=md is the Markdown of the model, headings by level',
    async () => {
      const jpeg = path.join(dir, 'linn.jpg');
      await sharp(PNG).jpeg({ quality: 85 }).toFile(jpeg);
      const { data, filename } = await convertAndDownload(server.url, key, jpeg, { to: 'md' }, OCR_TIMEOUT_MS);
      expect(path.extname(filename)).toBe('.md');
      const lines = data.toString('utf8').split('\n');
      expect(lines).toContain(`## ${TITLE}`);
      for (const heading of [...LEFT, ...RIGHT]) expect(lines).toContain(`### ${heading}`);
    },
    OCR_TIMEOUT_MS,
  );

  it(
    'PNG: op=chunk keeps chunks within maxTokens under their heading path, with their page',
    async () => {
      const submitted = await submitConvert(server.url, key, PNG, { op: 'chunk', maxTokens: '64' });
      expect(submitted.status, JSON.stringify(submitted.body)).toBe(200);
      const job = (await waitForJob(server.url, key, submitted.body.jobId, OCR_TIMEOUT_MS)) as any;
      expect(job.status, job.error).toBe('done');
      const { chunks } = job.result;
      for (const chunk of chunks) {
        expect(chunk.tokens).toBeLessThanOrEqual(64);
        expect(chunk.pages).toEqual({ first: 1, last: 1 });
      }
      const song = chunks.find((c: any) => c.content.includes('CREATE SONG will then automatically copy'));
      expect(song.headings).toEqual([TITLE, 'Creating a Song']);
    },
    OCR_TIMEOUT_MS,
  );

  it('refuses a file that is not the image its name says, with a message', async () => {
    const submitted = await submitConvert(
      server.url,
      key,
      { name: 'notes.png', data: 'plain text, not a PNG' },
      {
        op: 'structure',
      },
    );
    if (submitted.status === 200) {
      const job = (await waitForJob(server.url, key, submitted.body.jobId, 60_000)) as any;
      expect(job.status).toBe('failed');
      expect(job.error).toMatch(/PNG/);
      expect(job.error).not.toMatch(/\/tmp|\/work|sharp|vips/i);
    } else {
      expect(submitted.status).toBeGreaterThanOrEqual(400);
      expect(submitted.status).toBeLessThan(500);
      expect(submitted.body.error).toBeTruthy();
    }
  }, 120_000);
});
