/**
 * The office fidelity figures the ratchet holds (bench/lib/ratchet.ts), for each half (tuning, held-out) and kind
 * (docx, pptx, xlsx) of the committed corpus, fonts as installed:
 * - `converted`: the share of files that became a PDF;
 * - `pages`: the share of converted DOCX and PPTX whose PDF has the page or slide count saved in the file;
 * - `recall`: the mean share of the document XML's words found in the PDF's text;
 * - `images-kept`: the share of files holding raster images whose PDF has at least as many;
 * - `images-sized`: the share of those images found at their full pixel size in the PDF.
 * LibreOffice's output is deterministic; the tolerances of the shares of files absorb one file of the smallest set
 * (36), such as a file that runs out of its deadline on a loaded machine. The image figures of the small sets (4 to
 * 23 files with images) move past theirs when one file changes: a change to look at.
 *
 * The measure takes about 25 minutes of a loaded 2-core machine: it is not run by `npm test`. run.ts checks the
 * figures at the end of every full run, and `npx tsx bench/ratchet.ts office [--update]` measures and checks (or
 * writes) them; figures.test.ts (in `npm test`) checks that every figure has its baseline.
 */
import type { Figure } from '../lib/ratchet.js';

export interface FidelityRow {
  name: string;
  kind: 'docx' | 'pptx' | 'xlsx';
  half: string;
  failed?: string;
  savedPages?: number;
  pages?: number;
  recall: number;
  packageImages: number;
  pdfImages: number;
  imagesSized: number;
  hiddenOk?: boolean;
  comments?: number;
  commentsNoneOk?: boolean;
  commentsMarginOk?: boolean;
}

export const FIDELITY_HALVES = ['tuning', 'held-out'] as const;
export const FIDELITY_KINDS = ['docx', 'pptx', 'xlsx'] as const;

/** Tolerances: one file of about 36, a word-recall drift of half a percent, a few images of about 20. */
export const FIDELITY_TOLERANCES = {
  converted: 0.03,
  pages: 0.03,
  recall: 0.005,
  'images-kept': 0.08,
  'images-sized': 0.05,
} as const;
export type FidelityMeasure = keyof typeof FIDELITY_TOLERANCES;

/** The measures a kind has: XLSX saves no page count. */
export const measuresOf = (kind: FidelityRow['kind']): FidelityMeasure[] =>
  (Object.keys(FIDELITY_TOLERANCES) as FidelityMeasure[]).filter((measure) => measure !== 'pages' || kind !== 'xlsx');

export const fidelityFigureId = (half: string, kind: string, measure: FidelityMeasure) =>
  `office.${half}.${kind}.${measure}`;

export function fidelityFigures(rows: readonly FidelityRow[]): Figure[] {
  const figures: Figure[] = [];
  for (const half of FIDELITY_HALVES)
    for (const kind of FIDELITY_KINDS) {
      const set = rows.filter((row) => row.half === half && row.kind === kind);
      if (!set.length) continue;
      const done = set.filter((row) => !row.failed);
      const counted = done.filter((row) => row.savedPages !== undefined);
      const withImages = done.filter((row) => row.packageImages > 0);
      const images = withImages.reduce((sum, row) => sum + row.packageImages, 0);
      const values: Record<FidelityMeasure, [value: number, detail: string] | undefined> = {
        converted: [done.length / set.length, `${done.length}/${set.length} files`],
        pages: counted.length
          ? [
              counted.filter((row) => row.pages === row.savedPages).length / counted.length,
              `${counted.filter((row) => row.pages === row.savedPages).length}/${counted.length} files`,
            ]
          : undefined,
        recall: [done.reduce((sum, row) => sum + row.recall, 0) / (done.length || 1), `${done.length} files`],
        'images-kept': withImages.length
          ? [
              withImages.filter((row) => row.pdfImages >= row.packageImages).length / withImages.length,
              `${withImages.filter((row) => row.pdfImages >= row.packageImages).length}/${withImages.length} files`,
            ]
          : undefined,
        'images-sized': images
          ? [
              withImages.reduce((sum, row) => sum + row.imagesSized, 0) / images,
              `${withImages.reduce((sum, row) => sum + row.imagesSized, 0)}/${images} images`,
            ]
          : undefined,
      };
      for (const measure of measuresOf(kind)) {
        const measured = values[measure];
        if (!measured) continue;
        figures.push({
          id: fidelityFigureId(half, kind, measure),
          value: measured[0],
          better: 'higher',
          tolerance: FIDELITY_TOLERANCES[measure],
          detail: measured[1],
        });
      }
    }
  return figures;
}
