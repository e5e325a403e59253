/**
 * Sibling PDFs: more tuning material for the table, running-line and reading-order rules (apart from
 * run.ts's pinned `--half extra` set): PDFs of the corpus' packages that are in neither half (no file equal
 * to a corpus file), the first N by sha256 of their path, 2-30 pages, scored with the same truth as the
 * corpus. Reports tables in files without one, files with tables where one is found, running lines that
 * leak on their own page, word recall and two-column order (score.ts, as run.ts measures them); --out
 * writes each file's Markdown, named by its truth class, for reading; --leaks prints each leaked running
 * line with its page; --two-column converts and scores only files with two-column pages.
 *
 * `--from extra` takes them from the extra set's packages instead (none equal to an extra or corpus file).
 *
 *   nice -n 10 npx tsx bench/markdown/real/siblings.ts [--count 160] [--from corpus|extra] [--out dir] [--leaks]
 *     [--only substring] [--two-column]
 *
 * Run the corpus bench (run.ts) once first: it fetches and unpacks the packages into the cache.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { pdfToMarkdown } from '../../../plugins/markdown/shared/engine/index.js';
import {
  EXTRA_MANIFEST_PATH,
  extraCacheDir,
  MANIFEST_PATH,
  type Manifest,
  type RealPdf,
  realCacheDir,
} from './corpus.js';
import { leakedLines, scoreReal } from './score.js';
import { truthOf } from './truth.js';

const { values } = parseArgs({
  options: {
    count: { type: 'string', default: '160' },
    out: { type: 'string' },
    // Only files with two-column pages (by the truth's rule), converted and scored: reading-order material.
    'two-column': { type: 'boolean', default: false },
    leaks: { type: 'boolean', default: false },
    only: { type: 'string' },
    from: { type: 'string', default: 'corpus' },
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

const cache = values.from === 'extra' ? extraCacheDir() : realCacheDir();
// Neither half nor the extra set: a sibling is never a file that is measured elsewhere.
const inCorpus = new Set(
  [MANIFEST_PATH, EXTRA_MANIFEST_PATH].flatMap((path) =>
    (JSON.parse(readFileSync(path, 'utf8')) as Manifest).pdfs.map((pdf) => pdf.sha256),
  ),
);
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
// Word recall and two-column order, as run.ts measures them (more tuning material for reading order).
const text = { words: 0, wordsFound: 0, pairs: 0, pairsFound: 0, twoColumnPages: 0 };
const tally = {
  none: 0,
  falseFiles: 0,
  falseTables: 0,
  withFiles: 0,
  withFound: 0,
  withTables: 0,
  running: 0,
  leaks: 0,
};
for (const pdf of picked.filter((p) => !values.only || p.id.includes(values.only))) {
  // A file pdftotext cannot read in its time (a moire pattern of a million dots) is left out, said so.
  const truth = await truthOf(pdf, join(cache, 'extra')).catch(() => undefined);
  if (!truth) {
    console.log(`SKIP (no truth) ${pdf.id}`);
    continue;
  }
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
  const leaks = leakedLines(markdown, truth);
  tally.running += truth.runningLines;
  tally.leaks += leaks.length;
  console.log(
    `${truth.tables.padEnd(10)} ${String(tables).padStart(3)} leaks ${leaks.length}/${truth.runningLines} ` +
      `${pdf.id} recall ${recall}${order}`,
  );
  if (values.leaks) for (const leak of leaks) console.log(`    p${leak.page}: ${leak.line}`);
}
console.log(
  `${picked.length} PDFs in neither half: tables in files without one ${tally.falseTables} in ` +
    `${tally.falseFiles} of ${tally.none}; tables found ${tally.withTables}, ` +
    `in ${tally.withFound} of ${tally.withFiles}; running leaks (own page) ${tally.leaks} / ${tally.running} ` +
    `(${((100 * tally.leaks) / Math.max(1, tally.running)).toFixed(1)}%); word recall ` +
    `${(text.wordsFound / text.words).toFixed(3)}; ` +
    `two-column order ${(text.pairsFound / Math.max(1, text.pairs)).toFixed(3)} on ${text.twoColumnPages} pages`,
);
