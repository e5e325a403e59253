/**
 * The ratchet on parse-cv (bench/lib/ratchet.ts): each field's score and the overall score on the tuning half of
 * both generators' corpora may not fall below bench/baselines.json. The held-out halves are only measured by hand
 * (run.ts --half held-out).
 */
import { describe, expect, it } from 'vitest';
import { ratchetFailures } from '../lib/ratchet.js';
import { type CvCorpus, cvTuningFigures } from './figures.js';

describe('parse-cv figures hold their baselines', () => {
  for (const corpus of ['first', 'second'] as CvCorpus[])
    it(`on the ${corpus} corpus' tuning half`, { timeout: 600_000 }, async () => {
      expect(ratchetFailures(await cvTuningFigures(corpus))).toEqual([]);
    });
});
