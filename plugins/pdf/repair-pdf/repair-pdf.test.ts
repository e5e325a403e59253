/** repair-pdf: a damaged file made whole, scripts that run on their own removed. */
import { expect } from 'vitest';
import { pluginConformanceSuite } from '../../../core/contract/testing/index.js';
import { runProcess } from '../../../core/engines/process.js';
import { repairPdfPlugin } from './index.js';
import { pdfTestFixtures, objectsJson, pageCount, pageTexts, outputOf } from '../testing/fixtures.js';
import { standardPlugins } from '../../index.js';

const fixtures = pdfTestFixtures();

pluginConformanceSuite(
  repairPdfPlugin,
  [
    {
      name: 'a broken cross-reference table: a valid PDF with every page',
      files: [fixtures.get('damaged')],
      expectFormat: 'pdf',
      async check(run) {
        const output = outputOf(run);
        const { stdout } = await runProcess('qpdf', ['--check', output], { timeoutMs: 15_000 });
        expect(stdout).toMatch(/No syntax or stream encoding errors found/);
        expect(await pageTexts(output)).toEqual([1, 2, 3, 4, 5, 6, 7, 8].map((n) => `Page ${n}`));
      },
    },
    {
      name: 'scripts that run on their own are removed',
      files: [fixtures.get('scripted')],
      expectFormat: 'pdf',
      async check(run) {
        const before = await objectsJson(fixtures.get('scripted').path);
        for (const key of ['"/OpenAction"', '"/AA"', '"/JavaScript"']) expect(before).toContain(key);
        const after = await objectsJson(outputOf(run));
        for (const key of ['"/OpenAction"', '"/AA"', '"/JavaScript"', 'app.alert']) expect(after).not.toContain(key);
        expect(await pageCount(outputOf(run))).toBe(3);
      },
    },
    {
      name: 'an "open at page 2" destination is not a script and stays',
      files: [fixtures.get('open-at-page')],
      async check(run) {
        expect(await objectsJson(outputOf(run))).toMatch(/"\/OpenAction": \[\s*"\d+ 0 R",\s*"\/Fit"\s*\]/);
      },
    },
  ],
  { against: standardPlugins },
);
