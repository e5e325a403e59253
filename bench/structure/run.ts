/**
 * Structure bench: the document readers against truth read from each file's own XML
 * (truth.ts), on real DOCX, PPTX and XLSX files from public test corpora (files/README.md).
 * Files fall into a tuning half and a held-out half by a hash of their name; each half reports
 * micro-averaged F1 per kind of item (headings with their level, list items, table cells, slide
 * titles), then the chunk invariants on every file. Run: npx tsx bench/structure/run.ts
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { chunkDocument, walkBlocks, wordsTokenizer } from '../../core/contract/document/index.js';
import { readDocument } from '../../plugins/document/shared/read.js';
import type { Document } from '../../schema/index.js';
import { docxTruth, norm, pptxTruth, xlsxTruth } from './truth.js';

const FILES = path.join(import.meta.dirname, 'files');
type Kind = 'docx' | 'pptx' | 'xlsx';

/** Tuning or held-out, fixed by the file's name (never by its content or results). */
export const half = (name: string) =>
  (createHash('sha256').update(name).digest()[0]! & 1) === 0 ? 'tuning' : 'held-out';

function predicted(document: Document) {
  const headings: string[] = [];
  const lists: string[] = [];
  const cells: string[] = [];
  const titles: string[] = [];
  for (const block of walkBlocks(document.body)) {
    if (block.type === 'heading') headings.push(`h${block.level}:${norm(block.text)}`);
    if (block.type === 'list') for (const item of block.items) if (norm(item.text)) lists.push(`li:${norm(item.text)}`);
    if (block.type === 'table')
      for (const row of block.rows) for (const cell of row) if (norm(cell.text)) cells.push(`cell:${norm(cell.text)}`);
    if (block.type === 'section' && block.kind === 'slide' && block.title) titles.push(`title:${norm(block.title)}`);
  }
  return { headings, lists, cells, titles };
}

interface Tally {
  tp: number;
  fp: number;
  fn: number;
}
function score(truth: string[], found: string[], tally: Tally): void {
  const left = new Map<string, number>();
  for (const item of truth) left.set(item, (left.get(item) ?? 0) + 1);
  for (const item of found) {
    const n = left.get(item) ?? 0;
    if (n > 0) {
      tally.tp++;
      left.set(item, n - 1);
    } else tally.fp++;
  }
  for (const n of left.values()) tally.fn += n;
}
const f1 = ({ tp, fp, fn }: Tally) => (tp === 0 ? (fp + fn === 0 ? 1 : 0) : (2 * tp) / (2 * tp + fp + fn));

const words = (text: string) => text.split(/\s+/).filter(Boolean);

/**
 * Chunk invariants: none over the limit; every word of the body in exactly one chunk; paths made of the
 * document's headings.
 */
function chunkInvariants(document: Document, maxTokens: number) {
  const chunks = chunkDocument(document, { maxTokens, overlap: 0, mergePeers: true, tokenizer: wordsTokenizer });
  const over = chunks.filter((c) => c.tokens > maxTokens).length;
  const bodyWords = new Map<string, number>();
  const add = (map: Map<string, number>, text: string) => {
    for (const w of words(text).filter((w) => /\w/.test(w))) map.set(w, (map.get(w) ?? 0) + 1);
  };
  const headingTexts = new Set<string>();
  for (const block of walkBlocks(document.body)) {
    if (block.type === 'heading') headingTexts.add(block.text);
    if (block.type === 'section') headingTexts.add(block.title ?? `${block.kind} ${block.number}`);
    if (block.type === 'paragraph' || block.type === 'code' || block.type === 'formula') add(bodyWords, block.text);
    if (block.type === 'list') for (const item of block.items) add(bodyWords, item.text);
    if (block.type === 'table') for (const row of block.rows) for (const cell of row) add(bodyWords, cell.text);
  }
  const chunkWords = new Map<string, number>();
  for (const chunk of chunks) add(chunkWords, chunk.content);
  // Body words no chunk holds (a table's header row is repeated, so extra copies are not counted).
  let missing = 0;
  for (const [w, n] of bodyWords) missing += Math.max(0, n - (chunkWords.get(w) ?? 0));
  const pathsOk = chunks.every((c) => c.headings.every((h) => headingTexts.has(h)));
  return { chunks: chunks.length, over, missing, pathsOk };
}

async function main() {
  const work = await mkdtemp(path.join(os.tmpdir(), 'structure-bench-'));
  const ctx = { signal: new AbortController().signal, remainingMs: () => 120_000, workDir: work };
  const tallies: Record<string, Record<string, Tally>> = {};
  const tally = (h: string, what: string) => {
    tallies[h] ??= {};
    tallies[h][what] ??= { tp: 0, fp: 0, fn: 0 };
    return tallies[h][what];
  };
  const counts: Record<string, number> = {};
  let chunkFiles = 0;
  let over = 0;
  let badPaths = 0;
  let missing = 0;
  let failures = 0;
  for (const kind of ['docx', 'pptx', 'xlsx'] as Kind[]) {
    for (const name of (await readdir(path.join(FILES, kind))).sort()) {
      const file = path.join(FILES, kind, name);
      const h = half(name);
      counts[`${kind} ${h}`] = (counts[`${kind} ${h}`] ?? 0) + 1;
      let document: Document;
      try {
        document = await readDocument({ path: file, format: kind, filename: name, bytes: 0 }, ctx);
      } catch (err) {
        failures++;
        console.error(`${kind}/${name}: ${(err as Error).message}`);
        continue;
      }
      const found = predicted(document);
      if (kind === 'docx') {
        const truth = await docxTruth(file);
        score(truth.headings, found.headings, tally(h, 'docx headings (level+text)'));
        score(truth.lists, found.lists, tally(h, 'docx list items'));
        score(truth.cells, found.cells, tally(h, 'docx table cells'));
      } else if (kind === 'pptx') {
        const truth = await pptxTruth(file);
        score(truth.titles, found.titles, tally(h, 'pptx slide titles'));
        score(truth.cells, found.cells, tally(h, 'pptx table cells'));
      } else {
        score((await xlsxTruth(file)).cells, found.cells, tally(h, 'xlsx cells'));
      }
      const invariants = chunkInvariants(document, 64);
      chunkFiles++;
      over += invariants.over;
      missing += invariants.missing;
      if (!invariants.pathsOk) badPaths++;
    }
  }
  await rm(work, { recursive: true, force: true });
  console.log('files:', JSON.stringify(counts), 'unreadable:', failures);
  for (const h of ['tuning', 'held-out']) {
    console.log(`\n${h}`);
    for (const [what, t] of Object.entries(tallies[h] ?? {}))
      console.log(`  ${what.padEnd(28)} F1 ${f1(t).toFixed(3)}  (tp ${t.tp}, fp ${t.fp}, fn ${t.fn})`);
  }
  console.log(
    `\nchunks (maxTokens 64, words): ${chunkFiles} files, chunks over the limit: ${over}, files with a heading` +
      ` path not of their headings: ${badPaths}, body words in no chunk: ${missing}`,
  );
}

await main();
