/**
 * The parse-cv figures the ratchet holds (bench/lib/ratchet.ts): each field's mean score and the overall mean on
 * the tuning half of both generators' corpora (bench/cv/corpus, bench/cv/second), scored as run.ts scores them.
 *
 * The plugin reads the current month once, to resolve "present"; here the month is fixed (REFERENCE_MONTH), for
 * the truth and the parser alike, so a figure does not move with the calendar. Text extraction and parsing are
 * the plugin's own (`cvText`, `parseCv`), run through the plugin harness with its limits.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { isFileResult, type Plugin, singleInput } from '../../core/contract/index.js';
import { runPlugin } from '../../core/contract/testing/index.js';
import { parseCvPlugin } from '../../plugins/cv/parse-cv/index.js';
import { parseCv } from '../../plugins/cv/shared/parse.js';
import { cvText } from '../../plugins/cv/shared/text.js';
import type { Figure } from '../lib/ratchet.js';
import { FILES_DIR, TRUTH_FILE } from './corpus/generate.js';
import type { CvTruth, Month } from './corpus/model.js';
import { FIELDS, type FieldScore, type Row, scoreRow } from './score.js';
import { SECOND_FILES_DIR, SECOND_TRUTH_FILE } from './second/generate.js';

export const REFERENCE_MONTH: Month = { year: 2026, month: 11 };
const TOLERANCE = 0.005;

/** The fixed split of run.ts: a CV whose number is odd is held out. */
const isTuning = (id: string) => Number(/^[a-z]+-(\d+)/.exec(id)?.[1] ?? 0) % 2 === 0;

const atReferenceMonth: Plugin = {
  ...parseCvPlugin,
  run: async (inputs, _options, ctx) => {
    const { text, ocr } = await cvText(singleInput(inputs), ctx);
    return { row: { ...parseCv(text, { now: REFERENCE_MONTH, ocr }) } };
  },
};

const EMPTY_ROW: Row = {
  name: null,
  email: null,
  phone: null,
  title: null,
  employer: null,
  location: null,
  linkedin: null,
  skills: [],
  years_exp: null,
  confidence: Object.fromEntries(FIELDS.map((field) => [field, 0])) as Row['confidence'],
};

async function scoreOne(truth: CvTruth, dir: string): Promise<FieldScore[]> {
  const format = truth.format === 'scan' ? 'pdf' : truth.format;
  let row = EMPTY_ROW;
  try {
    const run = await runPlugin(atReferenceMonth, [{ path: join(dir, truth.file), format }]);
    rmSync(run.workDir, { recursive: true, force: true });
    if (!isFileResult(run.result)) row = run.result.row as unknown as Row;
  } catch {
    // A failed run scores as an empty row, as run.ts scores it.
  }
  return scoreRow(row, truth, REFERENCE_MONTH);
}

export type CvCorpus = 'first' | 'second';

/**
 * One CV at a time: with two runs at once in one process, a two-page PDF was sometimes read through the pdftotext
 * fallback (bench/cv/README.md), and a ratchet must not move with scheduling.
 */
export async function cvTuningFigures(corpus: CvCorpus, jobs = 1): Promise<Figure[]> {
  const [truthFile, dir] = corpus === 'first' ? [TRUTH_FILE, FILES_DIR] : [SECOND_TRUTH_FILE, SECOND_FILES_DIR];
  const truths = (JSON.parse(readFileSync(truthFile, 'utf8')) as CvTruth[]).filter((t) => isTuning(t.id));
  const queue = [...truths];
  const scores: FieldScore[] = [];
  await Promise.all(
    Array.from({ length: jobs }, async () => {
      for (let truth = queue.shift(); truth; truth = queue.shift()) scores.push(...(await scoreOne(truth, dir)));
    }),
  );
  const mean = (values: readonly number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
  const prefix = `cv.${corpus}-tune`;
  return [
    {
      id: `${prefix}.overall`,
      value: mean(scores.map((s) => s.score)),
      better: 'higher' as const,
      tolerance: TOLERANCE,
      detail: `${truths.length} CVs`,
    },
    ...FIELDS.map((field) => ({
      id: `${prefix}.${field}`,
      value: mean(scores.filter((s) => s.field === field).map((s) => s.score)),
      better: 'higher' as const,
      tolerance: TOLERANCE,
    })),
  ];
}
