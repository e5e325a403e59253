/**
 * Office fidelity bench: real DOCX, PPTX and XLSX files saved by Microsoft Office (Apache POI's test
 * documents, corpus/README.md) converted to PDF by office-convert through a warm LibreOffice pool, as
 * the service runs them (measure.ts). Per file:
 * - pages: DOCX and PPTX record the count Word or PowerPoint saved (docProps/app.xml <Pages>, <Slides>
 *   less <HiddenSlides>); the PDF's page count is compared with it (XLSX record none);
 * - text: the share of the words of the document XML (w:t, a:t, shared strings and inline cells)
 *   found in the PDF's text (pdftotext);
 * - images: the package's raster images (PNG, JPEG, GIF, TIFF, BMP in media/) against the PDF's
 *   (pdfimages -list): files keeping at least as many, and images whose pixel size is found in the PDF;
 * - options: a deck with hidden slides gets `exportHiddenSlides=true` too (pages = all slides); a
 *   document with comments gets `comments=margin` too (at least one PDF text annotation per comment,
 *   none by default).
 * Files are split into a tuning and a held-out half by a hash of their name.
 *
 *   npx tsx bench/office-fidelity/run.ts [--fonts=before] [--only=docx|pptx|xlsx] [--rows=file.json] [corpus folder]
 *
 * A full run of the committed corpus, fonts as installed, ends with the ratchet (figures.ts against
 * bench/baselines.json): a figure that dropped past its tolerance is printed and the exit code is 1. `--rows`
 * writes every file's measures as JSON.
 * `--fonts=before` runs LibreOffice unconfined with a fontconfig that sees only the fonts the project
 * installed before the Noto and metric-compatible families (DejaVu, URW base35, IPA Gothic).
 */
import { writeFile } from 'node:fs/promises';
import { ratchetFailures } from '../lib/ratchet.js';
import { type FidelityRow as Row, fidelityFigures } from './figures.js';
import { DEFAULT_CORPUS, measureOfficeCorpus } from './measure.js';

const args = process.argv.slice(2);
const fontsBefore = args.includes('--fonts=before');
const only = args.find((a) => a.startsWith('--only='))?.slice('--only='.length);
const rowsFile = args.find((a) => a.startsWith('--rows='))?.slice('--rows='.length);
const corpus = args.find((a) => !a.startsWith('--'));

const percent = (n: number, of: number) => (of ? `${((100 * n) / of).toFixed(1)}%` : 'n/a');
/** `n` of `of` as a share and its count, or n/a when there is nothing to count. */
const share = (n: number, of: number) => (of ? `${percent(n, of)} of ${of}` : 'n/a');

function summary(rows: Row[]): string[] {
  const lines: string[] = [];
  for (const part of ['tuning', 'held-out']) {
    for (const kind of ['docx', 'pptx', 'xlsx'] as const) {
      const set = rows.filter((r) => r.half === part && r.kind === kind);
      if (!set.length) continue;
      const done = set.filter((r) => !r.failed);
      const counted = done.filter((r) => r.savedPages !== undefined);
      const withImages = done.filter((r) => r.packageImages > 0);
      const images = withImages.reduce((s, r) => s + r.packageImages, 0);
      const hidden = done.filter((r) => r.hiddenOk !== undefined);
      const commented = done.filter((r) => r.comments !== undefined);
      lines.push(
        `| ${part} | ${kind} | ${set.length} | ${set.length - done.length} | ` +
          `${share(counted.filter((r) => r.pages === r.savedPages).length, counted.length)} | ` +
          `${(done.reduce((s, r) => s + r.recall, 0) / (done.length || 1)).toFixed(3)} | ` +
          `${share(withImages.filter((r) => r.pdfImages >= r.packageImages).length, withImages.length)} | ` +
          `${
            images
              ? `${percent(
                  withImages.reduce((s, r) => s + r.imagesSized, 0),
                  images,
                )} of ${images}`
              : 'n/a'
          } | ` +
          `${hidden.length ? `${hidden.filter((r) => r.hiddenOk).length}/${hidden.length}` : 'n/a'} | ` +
          `${
            commented.length
              ? `${commented.filter((r) => r.commentsNoneOk).length}/${commented.length},` +
                ` ${commented.filter((r) => r.commentsMarginOk).length}/${commented.length}`
              : 'n/a'
          } |`,
      );
    }
  }
  return lines;
}

const rows = await measureOfficeCorpus({
  ...(corpus ? { corpus } : {}),
  fontsBefore,
  ...(only ? { only } : {}),
  progress: (done, total) => {
    if (done % 25 === 0) console.error(`${done}/${total}`);
  },
});
if (rowsFile) await writeFile(rowsFile, JSON.stringify(rows, null, 1));

console.log(`fonts: ${fontsBefore ? 'before (DejaVu, URW base35, IPA Gothic)' : 'as installed'}; ${rows.length} files`);
console.log(
  '| half | kind | files | failed | same page count as saved | word recall | files keeping their images | images' +
    ' at full size | hidden slides with exportHiddenSlides | comments: none / margin |',
);
console.log('|---|---|---|---|---|---|---|---|---|---|');
for (const line of summary(rows)) console.log(line);
for (const r of rows.filter((r) => r.failed || (r.savedPages !== undefined && r.pages !== r.savedPages)))
  console.log(`- ${r.half} ${r.name}: ${r.failed ? `failed: ${r.failed}` : `${r.pages} pages, saved ${r.savedPages}`}`);

// The committed corpus with the fonts as installed is what bench/baselines.json holds (figures.ts).
if (!fontsBefore && !only && (!corpus || corpus === DEFAULT_CORPUS)) {
  const failed = ratchetFailures(fidelityFigures(rows));
  console.log(failed.length ? `\nratchet: ${failed.join('\n')}` : '\nratchet: every office figure holds its baseline');
  if (failed.length) process.exitCode = 1;
}
