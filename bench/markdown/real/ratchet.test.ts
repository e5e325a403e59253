/**
 * The ratchet on the real corpus' tuning half (33 PDFs of Debian documentation packages, fetched once with
 * apt-get download into .tmp/bench/markdown-real and checked by sha256): heading F1 (with each file's outline and
 * with it removed), running-line leaks, false tables, files with a table found, word recall and two-column order may
 * not fall below bench/baselines.json.
 * The held-out half is only measured by hand (run.ts --half heldout).
 */
import { describe, expect, it } from 'vitest';
import { ratchetFailures } from '../../lib/ratchet.js';
import { realTuningFigures } from '../figures.js';

describe('PDF -> Markdown figures on real PDFs hold their baselines', () => {
  it('on the real corpus tuning half', { timeout: 1_200_000 }, async () => {
    expect(ratchetFailures(await realTuningFigures())).toEqual([]);
  });
});
