import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { PluginError, type RunContext } from '../../../core/contract/index.js';
import { pdfToMarkdown } from '../shared/engine/index.js';
import { pdfToMarkdownPlugin as plugin } from './index.js';

const CORPUS = fileURLToPath(new URL('../../../bench/markdown/corpus/files/', import.meta.url));
const LAYOUTS = fileURLToPath(new URL('../../../bench/markdown/layouts/files/', import.meta.url));
// The CLI as `npm run pdf-to-markdown` starts it: compiled (scripts/pdf-to-markdown.mjs).
const CLI = fileURLToPath(new URL('../../../scripts/pdf-to-markdown.mjs', import.meta.url));
const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const ENCRYPTED = fileURLToPath(new URL('../testing/fixtures/encrypted.pdf', import.meta.url));

const pdf = (name: string) => new Uint8Array(readFileSync(join(CORPUS, `${name}.pdf`)));
const truth = (name: string) => readFileSync(join(CORPUS, `${name}.md`), 'utf8');
const run = promisify(execFile);

describe('pdfToMarkdown on the ground-truth corpus', () => {
  it('reproduces a small document exactly, with its page marker', async () => {
    const result = await pdfToMarkdown(pdf('ps-single-page'));
    expect(result.markdown).toBe(`<!-- page 1 -->\n\n${truth('ps-single-page')}`);
    expect(result.pages).toBe(1);
  });

  it.each(['ps-lists', 'ps-tables', 'ps-bold-headings', 'ps-shuffled-words'])(
    'reproduces %s exactly without page breaks',
    async (name) => {
      const result = await pdfToMarkdown(pdf(name), { pageBreaks: false });
      expect(result.markdown).toBe(truth(name));
      expect(result.markdown).not.toContain('<!-- page');
    },
  );

  it('ranks size-only headings and marks every page in order', async () => {
    const { markdown, stats, pages } = await pdfToMarkdown(pdf('ps-size-headings'));
    expect(markdown).toMatch(/^# Quarterly Operations Report$/m);
    expect(markdown).toMatch(/^## Summary of Results$/m);
    expect(markdown).toMatch(/^### Regional Details$/m);
    expect(stats).toMatchObject({ headings: 6, tables: 1 });
    const markers = [...markdown.matchAll(/<!-- page (\d+) -->/g)].map((m) => Number(m[1]));
    expect(markers).toEqual([1, 2, 3]);
    expect(pages).toBe(3);
    // A word hyphenated across the page break is rejoined before the marker.
    expect(markdown).toContain('Was with quarterly\n\n<!-- page 2 -->\n\ncan variation');
  });

  it('takes bold body-size lines as headings below the larger title', async () => {
    const { markdown } = await pdfToMarkdown(pdf('ps-bold-headings'));
    expect(markdown).toMatch(/^# Laboratory Procedure Manual$/m);
    expect(markdown).toMatch(/^## Calibration$/m);
  });

  it('recovers ruled, rules-only and borderless tables with wrapped cells', async () => {
    const { markdown, stats } = await pdfToMarkdown(pdf('ps-tables'));
    const wrapped =
      '| Design | Collect requirements from partners and agree the schedule with the steering committee before work ' +
      'starts | Planning team |';
    expect(markdown.split('\n').filter((line) => line === wrapped)).toHaveLength(3);
    expect(markdown).toContain('| Phase | Description | Owner |\n| --- | --- | --- |');
    expect(stats.tables).toBe(4);
  });

  it('is deterministic on a shuffled, one-show-per-word PDF', async () => {
    const [first, second] = await Promise.all([
      pdfToMarkdown(pdf('ps-shuffled-words')),
      pdfToMarkdown(pdf('ps-shuffled-words')),
    ]);
    expect(second.markdown).toBe(first.markdown);
    expect(first.markdown.startsWith('<!-- page 1 -->\n\n# Network Migration Plan\n\n')).toBe(true);
  });
});

describe('layouts: columns, continued and merged tables, lists, footnotes, scans', () => {
  const layout = (name: string) => new Uint8Array(readFileSync(join(LAYOUTS, `${name}.pdf`)));
  const layoutTruth = (name: string) => readFileSync(join(LAYOUTS, `${name}.md`), 'utf8');

  it('reads a two-column page column by column, the title across both', async () => {
    const { markdown, stats } = await pdfToMarkdown(layout('tc-small'));
    expect(markdown).toBe(
      `<!-- page 1 -->

# Field Notes on Storage

By discussed for measurement customers and faster winter to migration. Performance system across network faster ` +
        `collected can and deployment to while were summer winter have while improvements. Inventory inventory ` +
        `shipment ` +
        `migration remained between remained expected instrument a and following. Report regions across than a of ` +
        `performance may the.

## Method

In operating customers committee has committee partners has performance operating customers improvements ` +
        `observation inventory members analysis winter. Committee approved were improvements operating following ` +
        `shipment ` +
        `measurement should collected this remained review in inventory timeline the. Summer to analysis procedure ` +
        `discussed results shipment schedule for customers results has.

Across warehouse monitoring schedule every laboratory every services. Experiment deployment stable by from that ` +
        `infrastructure inventory should performance following adopted were. From improvements measurement and ` +
        `committee ` +
        `members schedule between of following team than services operating with. By security instrument in ` +
        `calibration ` +
        `calibration documentation and management infrastructure and.
`,
    );
    expect(markdown).toBe(`<!-- page 1 -->\n\n${layoutTruth('tc-small')}`);
    expect(stats).toMatchObject({ headings: 2, tables: 0, ocr_pages: 0 });
  });

  it('joins a table continued on the next page into one, its repeated header once', async () => {
    const { markdown, stats } = await pdfToMarkdown(layout('table-continued'));
    expect(stats.tables).toBe(1);
    expect(markdown.match(/^\| Date \| Reference \| Account \| Amount \|$/gm)).toHaveLength(1);
    // The last row of page 1 runs straight on into the first row of page 2.
    expect(markdown).toContain(
      '| 2024-11-15 | INV-1286 | Inventory Services | 8,458.00 |\n| 2024-12-22 | INV-1299 | Were Faster | 8,837.00 |',
    );
    expect(markdown.replace('<!-- page 1 -->\n\n', '').replace('\n\n<!-- page 2 -->', '')).toBe(
      layoutTruth('table-continued'),
    );
  });

  it('keeps the grid of merged cells: text in the top-left cell of the span, covered cells empty', async () => {
    const { markdown } = await pdfToMarkdown(layout('merged-hand'), { pageBreaks: false });
    expect(markdown).toContain(`| Region | Sales |  | Returns |  |
| --- | --- | --- | --- | --- |
|  | Q1 | Q2 | Q1 | Q2 |
| North | 1,200 | 1,350 | 40 | 35 |`);
    expect(markdown).toContain(`| 1 | Network | Survey | 12 |
|  | Storage | Survey | 8 |
| 2 | Network | Pilot rollout across both sites |  |`);
    expect(markdown).toBe(layoutTruth('merged-hand'));
  });

  it('OCRs a scan (no text layer) into the same structure, deterministically', async () => {
    const first = await pdfToMarkdown(layout('scan-memo'));
    expect(first.markdown).toBe(
      `<!-- page 1 -->

# Storage Migration Memo

By has variation report a migration improvements was system capacity. Report was every instrument during system ` +
        `between members proposal every that performance. Procedure costs will adopted reliability adopted in to ` +
        `security.

## Actions

- were discussed should delivered storage discussed
- to laboratory reliability adopted instrument across
- may will contracts faster warehouse that

Timeline between shipment have calibration to experiment migration with operating during between timeline. Was ` +
        `during to analysis each results variation services deployment increased across results contracts team.
`,
    );
    expect(first.stats).toMatchObject({ ocr_pages: 1, headings: 2 });
    expect((await pdfToMarkdown(layout('scan-memo'))).markdown).toBe(first.markdown);
  }, 120_000);

  it('continues a list item over a page break below the page marker, inside the item', async () => {
    const { markdown } = await pdfToMarkdown(layout('list-page-break'));
    // The marker sits where page 2 starts, indented into item 10 so the item (and the list) go on.
    expect(markdown).toContain(
      `9. calibration each can partners should team and in security during and priorities analysis ` +
        `regions discussed can remained every and following calibration have and services report committee services ` +
        `has ` +
        `was should samples each on temperature
10. than report temperature procedure priorities have indicate analysis should deployment summer

    <!-- page 2 -->

    inventory during have capacity during management instrument indicate schedule variation proposal proposal ` +
        `observation deployment experiment of partners should members this customers will procedure
11. winter winter experiment analysis deployment was management deployment team security inventory approved stable ` +
        `observation in have experiment may timeline discussed members samples was indicate were from on were ` +
        `capacity ` +
        `while calibration review the a`,
    );
    expect(markdown.replace('<!-- page 1 -->\n\n', '').replace('\n\n    <!-- page 2 -->\n\n    ', ' ')).toBe(
      layoutTruth('list-page-break'),
    );
  });

  it.each(['lists-numbers', 'list-page-break', 'footnotes', 'merged-html', 'table-continued-plain', 'tc-bands'])(
    'reproduces %s exactly without page breaks',
    async (name) => {
      expect((await pdfToMarkdown(layout(name), { pageBreaks: false })).markdown).toBe(layoutTruth(name));
    },
  );
});

describe('running headers and footers', () => {
  it('strips repeated headers and page-number footers by default', async () => {
    const { markdown, stats } = await pdfToMarkdown(pdf('ps-size-headings'));
    expect(markdown).not.toContain('Acme Corp');
    expect(markdown).not.toMatch(/Page \d of 3/);
    expect(stats.running_lines_stripped).toBe(6);
  });

  it('keeps them with keepRunning', async () => {
    const { markdown, stats } = await pdfToMarkdown(pdf('ps-size-headings'), { keepRunning: true });
    expect(markdown).toContain('Acme Corp | Quarterly Report');
    expect(markdown).toContain('Page 2 of 3');
    expect(stats.running_lines_stripped).toBe(0);
  });

  it('strips a lone page number on a single-page document', async () => {
    const { markdown, stats } = await pdfToMarkdown(pdf('ps-single-page'));
    expect(markdown).not.toMatch(/^1$/m);
    expect(stats.running_lines_stripped).toBe(1);
  });
});

describe('bad input', () => {
  it('rejects an encrypted PDF with a clear message', async () => {
    const attempt = pdfToMarkdown(new Uint8Array(readFileSync(ENCRYPTED)));
    await expect(attempt).rejects.toBeInstanceOf(PluginError);
    await expect(attempt).rejects.toThrow(/password/);
  });

  it.each([
    ['truncated', pdf('ps-tables').slice(0, 6000)],
    ['not a PDF', new TextEncoder().encode('hello, world')],
    ['empty', new Uint8Array(0)],
  ])('rejects a %s file as not a PDF', async (_, bytes) => {
    // Refused when the document is opened: a parse that hung instead meets the test's timeout.
    const attempt = pdfToMarkdown(bytes);
    await expect(attempt).rejects.toBeInstanceOf(PluginError);
    await expect(attempt).rejects.toThrow(/not a readable PDF/);
  });

  it('honours an abort signal', async () => {
    await expect(pdfToMarkdown(pdf('ps-tables'), { signal: AbortSignal.abort() })).rejects.toThrow(/cancelled/);
  });

  it('stops at the time budget', async () => {
    await expect(pdfToMarkdown(pdf('ps-tables'), { timeoutMs: 1 })).rejects.toThrow(/longer than/);
  });
});

describe('plugin manifest', () => {
  it('declares the extractor and returns one row', async () => {
    expect(plugin).toMatchObject({
      id: 'pdf-to-markdown',
      kind: 'extract',
      op: 'pdf-to-markdown',
      inputs: ['pdf'],
      plan: 'pro',
    });
    expect(plugin.options.parse({})).toEqual({ keepRunning: false, pageBreaks: true, lang: 'eng' });
    const work = mkdtempSync(join(tmpdir(), 'md-plugin-'));
    try {
      const ctx: RunContext = {
        target: 'json',
        workDir: work,
        signal: new AbortController().signal,
        progress: () => undefined,
        log: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined },
        report: () => undefined,
        remainingMs: () => 60_000,
      };
      const input = {
        path: join(CORPUS, 'ps-single-page.pdf'),
        format: 'pdf' as const,
        filename: 'memo.pdf',
        bytes: 1,
      };
      const result = await plugin.run([input], { keepRunning: false, pageBreaks: false, lang: 'eng' }, ctx);
      expect(result).toEqual({ row: await pdfToMarkdown(pdf('ps-single-page'), { pageBreaks: false }) });
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
});

describe('CLI', () => {
  const cli = (...args: string[]) => run(process.execPath, [CLI, ...args], { cwd: REPO });

  it('prints Markdown, or the row object with --json', async () => {
    const file = join(CORPUS, 'ps-single-page.pdf');
    const [text, json] = await Promise.all([cli(file, '--no-page-breaks'), cli(file, '--json', '--keep-running')]);
    expect(text.stdout).toBe(truth('ps-single-page'));
    const row = JSON.parse(json.stdout) as { pages: number; markdown: string; stats: Record<string, number> };
    expect(row.pages).toBe(1);
    expect(row.markdown).toContain('<!-- page 1 -->');
    expect(Object.keys(row.stats).sort()).toEqual([
      'headings',
      'ocr_pages',
      'running_lines_stripped',
      'tables',
      'words',
    ]);
  });

  it('exits non-zero with a one-line message for bad input or a language not offered', async () => {
    const failed = (attempt: Promise<unknown>) =>
      attempt.then(
        () => undefined,
        (error: { code: number; stderr: string }) => error,
      );
    const [failure, badLang] = await Promise.all([
      failed(cli(ENCRYPTED)),
      failed(cli(join(CORPUS, 'ps-single-page.pdf'), '--lang', 'spa')),
    ]);
    expect(failure?.code).not.toBe(0);
    expect(
      failure?.stderr
        .trim()
        .split('\n')
        .filter((l) => l.startsWith('pdf-to-markdown:')),
    ).toEqual(['pdf-to-markdown: This PDF is encrypted and needs a password; remove the password and try again.']);
    expect(badLang?.code).not.toBe(0);
    expect(badLang?.stderr).toContain(
      'pdf-to-markdown: --lang must be eng, fra, deu or jpn, or up to three of them joined with + (e.g. eng+fra); ' +
        "'spa' is not one of them",
    );
  });
});
