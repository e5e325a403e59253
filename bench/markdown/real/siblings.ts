/**
 * Sibling PDFs: more tuning material for the table rules (apart from run.ts's pinned `--half extra`
 * set): PDFs of the corpus' packages that are in neither half (no file equal to a corpus file), the
 * first N by sha256 of their path, 2-30 pages, scored with the same three-class table truth. Reports
 * tables in files without one and files with tables where one is found, word recall and two-column
 * order (as run.ts measures them); --out writes each file's
 * Markdown, named by its truth class, for reading.
 *
 *   nice -n 10 npx tsx bench/markdown/real/siblings.ts [--count 160] [--two-column] [--out dir]
 *
 * Run the corpus bench (run.ts) once first: it fetches and unpacks the packages into the cache.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { pdfToMarkdown } from '../../../plugins/markdown/shared/engine/index.js';
import { MANIFEST_PATH, type Manifest, type RealPdf, realCacheDir } from './corpus.js';
import { scoreReal } from './score.js';
import { truthOf } from './truth.js';

const { values } = parseArgs({
  options: {
    count: { type: 'string', default: '160' },
    out: { type: 'string' },
    // Only files with two-column pages (by the truth's rule), converted and scored: reading-order material.
    'two-column': { type: 'boolean', default: false },
  },
});
const MIN_PAGES = 2;
const MAX_PAGES = 30;

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

function pdfsUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return pdfsUnder(path);
    return path.endsWith('.pdf') ? [path] : [];
  });
}

function pageCount(file: string): number {
  try {
    return Number(/Pages:\s+(\d+)/.exec(execFileSync('pdfinfo', [file], { stdio: 'pipe' }).toString())?.[1] ?? 0);
  } catch {
    return 0;
  }
}

const cache = realCacheDir();
const manifest = JSON.parse(readFileSync(MANIFEST_PATH, 'utf8')) as Manifest;
const inCorpus = new Set(manifest.pdfs.map((pdf) => pdf.sha256));
const seen = new Set<string>();
const picked: RealPdf[] = [];
for (const file of pdfsUnder(join(cache, 'tree')).sort((a, b) => sha256(a).localeCompare(sha256(b)))) {
  if (picked.length >= Number(values.count)) break;
  const hash = sha256(readFileSync(file));
  if (inCorpus.has(hash) || seen.has(hash)) continue;
  seen.add(hash);
  const pages = pageCount(file);
  if (pages < MIN_PAGES || pages > MAX_PAGES) continue;
  const id = file.slice(join(cache, 'tree').length + 1);
  picked.push({ id, package: '', path: id, sha256: hash, pages, producer: '', creator: '', half: 'tune', file });
}

if (values.out) mkdirSync(values.out, { recursive: true });
const tally = { none: 0, falseFiles: 0, falseTables: 0, withFiles: 0, withFound: 0, withTables: 0 };
// Word recall and two-column order, as run.ts measures them (more tuning material for reading order).
const text = { words: 0, wordsFound: 0, pairs: 0, pairsFound: 0, twoColumnPages: 0 };
for (const pdf of picked) {
  const truth = await truthOf(pdf, join(cache, 'extra'));
  if (values['two-column'] && !truth.twoColumnPages.length) continue;
  const markdown = await pdfToMarkdown(new Uint8Array(readFileSync(pdf.file)), { timeoutMs: 600_000 }).then(
    (result) => result.markdown,
    () => '',
  );
  const tables = markdown.split('\n').filter((line) => line.startsWith('| ---')).length;
  if (values.out) writeFileSync(join(values.out, `${truth.tables}--${pdf.id.replace(/\//g, '_')}.md`), markdown);
  if (truth.tables === 'none') {
    tally.none++;
    if (tables) tally.falseFiles++;
    tally.falseTables += tables;
  } else if (truth.tables === 'yes') {
    tally.withFiles++;
    if (tables) tally.withFound++;
    tally.withTables += tables;
  }
  const score = scoreReal(markdown, truth);
  text.words += score.words.total;
  text.wordsFound += score.words.found;
  text.pairs += score.order.total;
  text.pairsFound += score.order.found;
  text.twoColumnPages += truth.twoColumnPages.length;
  const order = score.order.total ? ` order ${(score.order.found / score.order.total).toFixed(3)}` : '';
  const recall = (score.words.found / Math.max(1, score.words.total)).toFixed(3);
  console.log(`${truth.tables.padEnd(10)} ${String(tables).padStart(3)} ${pdf.id} recall ${recall}${order}`);
}
console.log(
  `${picked.length} PDFs in neither half: tables in files without one ${tally.falseTables} in ` +
    `${tally.falseFiles} of ${tally.none}; tables found ${tally.withTables}, ` +
    `in ${tally.withFound} of ${tally.withFiles}; word recall ${(text.wordsFound / text.words).toFixed(3)}; ` +
    `two-column order ${(text.pairsFound / Math.max(1, text.pairs)).toFixed(3)} on ${text.twoColumnPages} pages`,
);
