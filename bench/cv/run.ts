/**
 * The parse-cv bench: runs the plugin (text layer, pdf.js layout, OCR, DOCX reader, LibreOffice)
 * on every CV of bench/cv/corpus and prints field scores by format, language and layout, the
 * confidence calibration and the targets.
 *
 *   npx tsx bench/cv/run.ts [--corpus first|second] [--half tuning|held-out] [--only <id part>] [--jobs 2] [--verbose]
 *   [--json <file>]
 *
 * `--corpus second` scores bench/cv/second (an independent generator). Halves, fixed before any
 * result was seen, on both corpora: a CV whose number (the two digits after the language) is odd
 * is held out, an even one is the tuning half.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { isFileResult } from '../../core/contract/index.js';
import { runPlugin } from '../../core/contract/testing/index.js';
import { parseCvPlugin } from '../../plugins/cv/parse-cv/index.js';
import { FILES_DIR, TRUTH_FILE } from './corpus/generate.js';
import { SECOND_FILES_DIR, SECOND_TRUTH_FILE } from './second/generate.js';
import { yearsOn, type CvTruth, type Month } from './corpus/model.js';
import { FIELDS, scoreRow, type Field, type FieldScore, type Row } from './score.js';

interface Result {
  truth: CvTruth;
  row: Row | null;
  error?: string;
  scores: FieldScore[];
  ms: number;
}

const args = process.argv.slice(2);
const flag = (name: string) => args.includes(name);
const option = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);

export function currentMonth(): Month {
  const today = new Date();
  return { year: today.getUTCFullYear(), month: today.getUTCMonth() + 1 };
}

async function parseOne(truth: CvTruth, now: Month, filesDir: string): Promise<Result> {
  const started = Date.now();
  const format = truth.format === 'scan' ? 'pdf' : truth.format;
  try {
    const run = await runPlugin(parseCvPlugin, [{ path: join(filesDir, truth.file), format }]);
    rmSync(run.workDir, { recursive: true, force: true });
    if (isFileResult(run.result)) throw new Error('expected a row');
    const row = run.result.row as unknown as Row;
    return { truth, row, scores: scoreRow(row, truth, now), ms: Date.now() - started };
  } catch (err) {
    const empty = {
      name: null,
      email: null,
      phone: null,
      title: null,
      employer: null,
      location: null,
      linkedin: null,
      skills: [],
      years_exp: null,
    };
    const row = { ...empty, confidence: Object.fromEntries(FIELDS.map((f) => [f, 0])) as Record<Field, number> };
    return { truth, row: null, error: String(err), scores: scoreRow(row, truth, now), ms: Date.now() - started };
  }
}

/** The fixed split: the CV's number (`de-07-...`) odd = held out. */
export const halfOf = (id: string) => (Number(/^[a-z]+-(\d+)/.exec(id)?.[1] ?? 0) % 2 === 1 ? 'held-out' : 'tuning');

const mean = (values: number[]) => (values.length ? values.reduce((a, b) => a + b, 0) / values.length : NaN);
const fmt = (value: number) => (Number.isNaN(value) ? '  -  ' : value.toFixed(2));

function table(title: string, groups: Map<string, Result[]>): string {
  const header = `| ${title} | n | ${FIELDS.join(' | ')} | overall |`;
  const rule = `|${'---|'.repeat(FIELDS.length + 3)}`;
  const lines = [...groups].map(([key, results]) => {
    const all = results.flatMap((r) => r.scores);
    const cells = FIELDS.map((field) => fmt(mean(all.filter((s) => s.field === field).map((s) => s.score))));
    return `| ${key} | ${results.length} | ${cells.join(' | ')} | **${fmt(mean(all.map((s) => s.score)))}** |`;
  });
  return [header, rule, ...lines].join('\n');
}

function groupBy(results: Result[], key: (r: Result) => string): Map<string, Result[]> {
  const groups = new Map<string, Result[]>();
  for (const result of results) groups.set(key(result), [...(groups.get(key(result)) ?? []), result]);
  return new Map([...groups].sort(([a], [b]) => a.localeCompare(b)));
}

async function main(): Promise<void> {
  const now = currentMonth();
  const only = option('--only');
  const second = option('--corpus') === 'second';
  const half = option('--half');
  const truths = (JSON.parse(readFileSync(second ? SECOND_TRUTH_FILE : TRUTH_FILE, 'utf8')) as CvTruth[])
    .filter((t) => !only || t.id.includes(only))
    .filter((t) => !half || halfOf(t.id) === half);
  const results: Result[] = [];
  // Two at a time by default: OCR and LibreOffice runs are single-threaded engines.
  const queue = [...truths];
  const jobs = Number(option('--jobs') ?? 2);
  await Promise.all(
    Array.from({ length: jobs }, async () => {
      for (let truth = queue.shift(); truth; truth = queue.shift())
        results.push(await parseOne(truth, now, second ? SECOND_FILES_DIR : FILES_DIR));
    }),
  );
  results.sort((a, b) => a.truth.id.localeCompare(b.truth.id));

  if (flag('--verbose')) {
    for (const result of results) {
      const wrong = result.scores.filter((s) => !s.right);
      if (!wrong.length && !result.error) continue;
      console.log(`\n${result.truth.id}${result.error ? `  ERROR ${result.error}` : ''}`);
      for (const s of wrong) {
        const truthValue =
          s.field === 'years_exp'
            ? yearsOn(result.truth.experience, now)
            : (result.truth as unknown as Record<string, unknown>)[s.field];
        console.log(
          `  ${s.field.padEnd(9)} ${s.score.toFixed(2)} c=${s.confidence}  got ` +
            `${JSON.stringify(result.row?.[s.field])}  want ${JSON.stringify(truthValue)}`,
        );
      }
    }
  }

  const all = results.flatMap((r) => r.scores);
  console.log(
    table(
      'half',
      groupBy(results, (r) => halfOf(r.truth.id)),
    ),
    '\n',
  );
  console.log(
    `\nparse-cv on ${results.length} CVs (reference month ${now.year}-${String(now.month).padStart(2, '0')})\n`,
  );
  console.log(
    table(
      'format',
      groupBy(results, (r) => r.truth.format),
    ),
    '\n',
  );
  console.log(
    table(
      'language',
      groupBy(results, (r) => r.truth.lang),
    ),
    '\n',
  );
  console.log(
    table(
      'layout',
      groupBy(results, (r) => r.truth.layout),
    ),
    '\n',
  );
  console.log(table('all', new Map([['all', results]])), '\n');

  const sure = all.filter((s) => s.found && s.confidence >= 0.8);
  const unsure = all.filter((s) => s.found && s.confidence < 0.8);
  const precision = (scores: FieldScore[]) => mean(scores.map((s) => (s.right ? 1 : 0)));
  console.log('| confidence | values | right |\n|---|---|---|');
  console.log(`| >= 0.8 | ${sure.length} | ${fmt(precision(sure))} |`);
  console.log(`| < 0.8 | ${unsure.length} | ${fmt(precision(unsure))} |`);
  for (const field of FIELDS) {
    const fieldSure = sure.filter((s) => s.field === field);
    if (fieldSure.length) console.log(`| >= 0.8 ${field} | ${fieldSure.length} | ${fmt(precision(fieldSure))} |`);
  }

  const fieldMean = (field: Field) => mean(all.filter((s) => s.field === field).map((s) => s.score));
  const scanMean = mean(results.filter((r) => r.truth.format === 'scan').flatMap((r) => r.scores.map((s) => s.score)));
  const targets: Array<[string, number, number]> = [
    ['overall', mean(all.map((s) => s.score)), 0.9],
    ...(['email', 'phone', 'linkedin'] as const).map((f): [string, number, number] => [f, fieldMean(f), 0.98]),
    ...(['title', 'employer', 'location', 'years_exp'] as const).map((f): [string, number, number] => [
      f,
      fieldMean(f),
      0.85,
    ]),
    ['scans', scanMean, 0.8],
    ['confidence >= 0.8 right', precision(sure), 0.95],
  ];
  console.log('\n| target | value | goal | met |\n|---|---|---|---|');
  for (const [name, value, goal] of targets)
    console.log(`| ${name} | ${fmt(value)} | ${goal.toFixed(2)} | ${value >= goal ? 'yes' : '**no**'} |`);
  const errors = results.filter((r) => r.error);
  if (errors.length) console.log(`\n${errors.length} runs failed: ${errors.map((r) => r.truth.id).join(', ')}`);
  console.log(`\nmean time per CV: ${Math.round(mean(results.map((r) => r.ms)))} ms`);
  const out = option('--json');
  if (out)
    writeFileSync(
      out,
      JSON.stringify(
        results.map(({ truth, row, scores }) => ({ id: truth.id, row, scores })),
        null,
        1,
      ),
    );
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) await main();
