/**
 * The office fidelity figures (figures.ts): how they are computed from the measured rows, and that each one has its
 * baseline in bench/baselines.json with the figure's own definition. The measure itself (about 25 minutes) is not
 * run here: run.ts checks the figures at the end of a full run, and `npx tsx bench/ratchet.ts office` on demand.
 */
import { describe, expect, it } from 'vitest';
import { readBaselines } from '../lib/ratchet.js';
import {
  FIDELITY_HALVES,
  FIDELITY_KINDS,
  FIDELITY_TOLERANCES,
  type FidelityRow,
  fidelityFigureId,
  fidelityFigures,
  measuresOf,
} from './figures.js';

const row = (fields: Partial<FidelityRow>): FidelityRow => ({
  name: 'x.docx',
  kind: 'docx',
  half: 'tuning',
  recall: 1,
  packageImages: 0,
  pdfImages: 0,
  imagesSized: 0,
  ...fields,
});

describe('office fidelity figures', () => {
  it('are shares of the converted files, page counts, word recall and images, per half and kind', () => {
    const figures = fidelityFigures([
      row({ savedPages: 2, pages: 2, recall: 0.9, packageImages: 2, pdfImages: 2, imagesSized: 2 }),
      row({ savedPages: 3, pages: 4, recall: 0.7, packageImages: 2, pdfImages: 1, imagesSized: 0 }),
      row({ failed: 'the conversion took too long' }),
      row({ half: 'held-out', kind: 'xlsx', recall: 0.5 }),
    ]);
    const value = (id: string) => figures.find((figure) => figure.id === id)?.value;
    expect(value('office.tuning.docx.converted')).toBeCloseTo(2 / 3);
    expect(value('office.tuning.docx.pages')).toBe(0.5);
    expect(value('office.tuning.docx.recall')).toBeCloseTo(0.8);
    expect(value('office.tuning.docx.images-kept')).toBe(0.5);
    expect(value('office.tuning.docx.images-sized')).toBe(0.5);
    // A workbook saves no page count; a set without images has no image figures.
    expect(figures.filter((figure) => figure.id.startsWith('office.held-out.xlsx.')).map((f) => f.id)).toEqual([
      'office.held-out.xlsx.converted',
      'office.held-out.xlsx.recall',
    ]);
    for (const figure of figures) expect(figure.better).toBe('higher');
  });

  it('each has its baseline, with the same direction and tolerance', () => {
    const baselines = readBaselines();
    for (const half of FIDELITY_HALVES)
      for (const kind of FIDELITY_KINDS)
        for (const measure of measuresOf(kind)) {
          const id = fidelityFigureId(half, kind, measure);
          expect(baselines[id], id).toMatchObject({ better: 'higher', tolerance: FIDELITY_TOLERANCES[measure] });
        }
  });
});
