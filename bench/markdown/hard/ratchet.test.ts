/**
 * The ratchet on the hard-layout corpus' tuning half (pdfTeX, LibreOffice and browser prints of two columns,
 * merged cells, continued tables, footnotes and scans; committed in files/): table cells, TEDS, table precision
 * and recall, running-line leaks may not fall below bench/baselines.json. The held-out half is measured by hand
 * (run.ts --half heldout), so nobody tunes against a failing held-out figure.
 */
import { describe, expect, it } from 'vitest';
import { ratchetFailures } from '../../lib/ratchet.js';
import { hardFigures, hardNames, scoreHard } from './score.js';

describe('PDF -> Markdown table figures on the hard layouts of other producers hold their baselines', () => {
  it('on the hard-layout corpus tuning half', { timeout: 600_000 }, async () => {
    const scores = [];
    for (const name of hardNames('tune')) scores.push(await scoreHard(name));
    expect(ratchetFailures(hardFigures('tune', scores))).toEqual([]);
  });
});
