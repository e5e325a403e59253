/**
 * Running headers and footers of kinds the real corpus's tuning half lacks, and two columns an em
 * apart, on small PDFs made here (testing/fixtures/running/README.md: how each was made).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { pdfToMarkdown } from '../shared/engine/index.js';

const convert = async (name: string) =>
  pdfToMarkdown(new Uint8Array(readFileSync(new URL(`../testing/fixtures/running/${name}`, import.meta.url))));
const bodyLines = (markdown: string) =>
  markdown
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('<!--') && !line.startsWith('#'));

describe('running lines', () => {
  it('book class: chapter and section heads with folios on both sides, and plain folios', async () => {
    const { markdown, stats } = await convert('book-markboth.pdf');
    expect(markdown).not.toMatch(/CHAPTER \d|[A-Z]{4} OF WATER|^\d+$/m);
    expect(markdown).toContain('### 1.2 Local Evidence of Water');
    expect(stats.running_lines_stripped).toBeGreaterThanOrEqual(12);
  });

  it('a bold head that repeats the current section title, changing every page or two', async () => {
    const { markdown } = await convert('koma-section-heads.pdf');
    const titles = ['Scope of the Note', 'Field Work', 'Instruments Used', 'Calibration Runs', 'Error Sources'];
    expect(bodyLines(markdown).filter((line) => titles.includes(line))).toEqual([]);
    expect(markdown).toContain('## 3 Instruments Used');
    expect(bodyLines(markdown).filter((line) => /^\d+$/.test(line))).toEqual([]);
  });

  it('groff -ms and -mom headers and footers', async () => {
    const ms = (await convert('groff-ms.pdf')).markdown;
    expect(ms).not.toMatch(/Synthetic Report 7|November 2026|Draft|Page \d/);
    expect(ms).toContain('## 3. Measures');
    const mom = (await convert('groff-mom.pdf')).markdown;
    expect(mom).not.toMatch(/VILLAGE ARCHIVES|-\d-/);
    expect(mom).toContain('## Letters');
  });

  it('keeps each slide its own title; drops the footline', async () => {
    const { markdown } = await convert('slides-titles.pdf');
    const lines = bodyLines(markdown);
    for (const title of ['Motivation', 'Data Sources', 'Open Issues', 'Summary']) expect(lines).toContain(title);
    expect(markdown).not.toMatch(/Harbour Records \d|\d \/ 8/);
  });

  it('two columns an em apart, read column by column, with recto and verso heads dropped', async () => {
    const { markdown } = await convert('journal-twocolumn.pdf');
    expect(markdown).not.toMatch(/Doe et al|· Journal of Synthetic Studies/);
    // Page 2: the left column's words run on, then the right column's.
    expect(markdown).toContain('given method however is light method.');
    const leftColumn = markdown.indexOf('Stone village evidence between local large');
    expect(leftColumn).toBeGreaterThan(0);
    expect(markdown.indexOf('given archive process strong')).toBeGreaterThan(leftColumn);
  });
});
