/**
 * The ratchet on structure F1 for PDF input through the document model (bench/structure/pdf.ts): heading F1 on
 * the real corpus' tuning half (text; level + text), list F1 on the lists corpus' tuning half, headings, lists and
 * table cells on the layouts corpus may not fall below bench/baselines.json. The held-out halves are measured by
 * hand (run-pdf.ts).
 */
import { describe, expect, it } from 'vitest';
import { ratchetFailures } from '../lib/ratchet.js';
import { pdfStructureFigures } from './pdf.js';

describe('PDF structure figures through the model hold their baselines', () => {
  it('on the real tuning half, the lists tuning half and the layouts corpus', { timeout: 1_800_000 }, async () => {
    expect(ratchetFailures(await pdfStructureFigures())).toEqual([]);
  });
});
