/**
 * The ratchet on the generated PDF -> Markdown corpora (bench/lib/ratchet.ts): heading, list and table figures
 * (cell accuracy, TEDS, table precision and recall), text similarity, page markers and running-line leaks may not
 * fall below bench/baselines.json. The lists corpus is held on its tuning half; its held-out half is only measured
 * by hand (lists/run.ts).
 */
import { describe, expect, it } from 'vitest';
import { ratchetFailures } from '../lib/ratchet.js';
import { type GeneratedCorpus, generatedFigures, scoreGenerated } from './figures.js';

describe('PDF -> Markdown figures hold their baselines', () => {
  for (const corpus of ['single', 'layouts', 'lists'] as GeneratedCorpus[])
    it(`on the ${corpus} corpus`, { timeout: 600_000 }, async () => {
      const figures = generatedFigures(corpus, await scoreGenerated(corpus));
      expect(ratchetFailures(figures)).toEqual([]);
    });
});
