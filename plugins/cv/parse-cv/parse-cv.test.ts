/** parse-cv end to end: real files through pdftotext, tesseract, the DOCX reader and LibreOffice. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isFileResult, PluginError } from '../../../core/contract/index.js';
import { pluginConformanceSuite, runPlugin, type TestRun } from '../../../core/contract/testing/index.js';
import { CV_FIELDS, type CvRow } from '../shared/parse.js';
import { CvFixtures, FULL_CV_ROW, SCANNED_CV_ROW } from '../testing/fixtures.js';
import { parseCvPlugin } from './index.js';
import { standardPlugins } from '../../index.js';

const fixtures = new CvFixtures();
beforeAll(() => fixtures.make(), 60_000);
afterAll(() => fixtures.cleanup());

const rowOf = (run: TestRun): CvRow => {
  if (isFileResult(run.result)) throw new Error('expected a row');
  return run.result.row as unknown as CvRow;
};

const PATTERN_FIELDS = ['email', 'phone', 'linkedin'] as const;

function expectFullCv(row: CvRow) {
  const { confidence, ...values } = row;
  expect(values).toEqual(FULL_CV_ROW);
  for (const field of CV_FIELDS) expect(confidence[field]).toBeGreaterThanOrEqual(0.7);
  for (const field of PATTERN_FIELDS) expect(confidence[field]).toBeGreaterThanOrEqual(0.95);
  // Found by position, shape and section rather than an exact pattern: reviewable values.
  expect(confidence.years_exp).toBeLessThan(0.8);
}

pluginConformanceSuite(
  parseCvPlugin,
  [
    { name: 'text PDF', files: [fixtures.get('full-pdf')], check: (run) => expectFullCv(rowOf(run)) },
    { name: 'DOCX', files: [fixtures.get('full-docx')], check: (run) => expectFullCv(rowOf(run)) },
    {
      name: 'legacy DOC through LibreOffice',
      files: [fixtures.get('full-doc')],
      check: (run) => expectFullCv(rowOf(run)),
    },
    {
      name: 'scanned PDF through OCR',
      files: [fixtures.get('scanned-pdf')],
      check(run) {
        const { confidence, ...values } = rowOf(run);
        expect(values).toEqual(SCANNED_CV_ROW);
        expect(confidence.email).toBeGreaterThanOrEqual(0.8);
        expect(confidence.phone).toBeGreaterThanOrEqual(0.8);
        // OCR lowers every confidence, so heuristic fields are marked for review.
        for (const field of ['name', 'title', 'employer', 'location', 'years_exp'] as const)
          expect(confidence[field]).toBeLessThan(0.8);
        expect(confidence.linkedin).toBe(0);
        expect(run.progress.some((pct) => pct > 10 && pct < 100)).toBe(true);
      },
    },
  ],
  { against: standardPlugins },
);

describe('parse-cv', () => {
  it('leaves missing fields empty with confidence 0 on a sparse CV', async () => {
    const row = rowOf(await runPlugin(parseCvPlugin, [fixtures.get('sparse-pdf')]));
    expect(row).toMatchObject({
      name: 'Alex Morgan',
      email: null,
      phone: null,
      title: null,
      employer: null,
      location: null,
      linkedin: null,
      skills: [],
      years_exp: null,
    });
    for (const field of CV_FIELDS) expect(row.confidence[field]).toBe(field === 'name' ? 0.85 : 0);
  });

  it('gives the same row for the same file', async () => {
    const first = await runPlugin(parseCvPlugin, [fixtures.get('full-pdf')]);
    const second = await runPlugin(parseCvPlugin, [fixtures.get('full-pdf')]);
    expect(JSON.stringify(rowOf(second))).toBe(JSON.stringify(rowOf(first)));
  });

  it('refuses a damaged PDF with a clear message', async () => {
    const failure = runPlugin(parseCvPlugin, [fixtures.get('damaged-pdf')]);
    await expect(failure).rejects.toBeInstanceOf(PluginError);
    await expect(failure).rejects.toThrow(/^The file is not a readable PDF; it may be damaged or truncated/);
  });

  it('asks for a password-protected PDF to be unlocked first', async () => {
    await expect(runPlugin(parseCvPlugin, [fixtures.get('encrypted-pdf')])).rejects.toThrow(
      'The PDF is password-protected: unlock it first (op unlock-pdf)',
    );
  });

  it('refuses a damaged DOCX with a clear message', async () => {
    const failure = runPlugin(parseCvPlugin, [fixtures.get('damaged-docx')]);
    await expect(failure).rejects.toBeInstanceOf(PluginError);
    await expect(failure).rejects.toThrow('Could not read this DOCX: the file is damaged or is not a Word document');
  });
});
