/**
 * The ratchet on the printed corpus' tuning half (real Sphinx manual pages printed by chromium and exported by
 * LibreOffice; packages fetched once with apt-get download, PDFs made once into .tmp/bench/markdown-printed):
 * table precision, recall and TEDS per producer may not fall below bench/baselines.json. The held-out half is
 * measured by hand (run.ts --half heldout).
 */
import { describe, expect, it } from 'vitest';
import { ratchetFailures } from '../../lib/ratchet.js';
import { printedFigures } from './corpus.js';

describe('PDF -> Markdown table figures on browser prints and office exports hold their baselines', () => {
  it('on the printed corpus tuning half', { timeout: 1_200_000 }, async () => {
    expect(ratchetFailures(await printedFigures('tune'))).toEqual([]);
  });
});
