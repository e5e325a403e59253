/**
 * office-convert on real files made here: a DOCX and a PPTX written by pandoc from Markdown, a
 * legacy DOC made from that DOCX by LibreOffice, an XLSX written by exceljs.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PluginError, isFileResult } from '../../../core/contract/index.js';
import { pluginConformanceSuite, runPlugin, type TestRun } from '../../../core/contract/testing/index.js';
import { LibreOfficePool } from '../../../core/engines/execution/libreoffice-pool.js';
import { libreOfficeConvert, telling, useOfficeConverter } from '../../../core/engines/libreoffice.js';
import { runProcess } from '../../../core/engines/process.js';
import { processesMentioning } from '../../../core/engines/testing/processes.js';
import type { FormatId } from '../../../schema/index.js';
import { officeTimeoutMs } from '../shared/family.js';
import { officeSupports } from './formats.js';
import { officeConvertPlugin } from './index.js';
import { standardPlugins } from '../../index.js';

const HEADING = 'Quarterly Report';
const PARAGRAPH = 'The zebra jumped over the quantum fence.';
const CELL = 'Widgets sold: 4217';
// Fixed (the conformance samples are listed before beforeAll runs), per process.
const CONFORMANCE_TXT = path.join(os.tmpdir(), `office-conformance-${process.pid}.txt`);

let dir = '';
const file = (name: string) => path.join(dir, name);
const runs: TestRun[] = [];
/** A work dir inside the test dir, for runs that throw (runPlugin cannot hand theirs back). */
const workDir = () => mkdtemp(path.join(dir, 'run-'));

async function convert(input: string, from: FormatId, target: FormatId): Promise<string> {
  const run = await runPlugin(officeConvertPlugin, [{ path: input, format: from }], {}, { target });
  runs.push(run);
  if (!isFileResult(run.result)) throw new Error('expected a file');
  expect(run.result.format).toBe(target);
  return run.result.path;
}

const text = async (pdf: string) =>
  (await runProcess('pdftotext', ['-enc', 'UTF-8', pdf, '-'], { timeoutMs: 10_000 })).stdout;
const pages = async (pdf: string) =>
  Number(/Pages:\s+(\d+)/.exec((await runProcess('pdfinfo', [pdf], { timeoutMs: 10_000 })).stdout)?.[1]);

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'office-test-'));
  await writeFile(file('doc.md'), `# ${HEADING}\n\n${PARAGRAPH}\n`);
  await runProcess('pandoc', [file('doc.md'), '-o', file('report.docx')], { timeoutMs: 20_000 });
  await writeFile(file('slides.md'), '# One\n\nFirst slide\n\n# Two\n\nSecond slide\n\n# Three\n\nThird slide\n');
  await runProcess('pandoc', [file('slides.md'), '-o', file('slides.pptx')], { timeoutMs: 20_000 });
  const book = new ExcelJS.Workbook();
  book.addWorksheet('Sales').getCell('B2').value = CELL;
  await book.xlsx.writeFile(file('sales.xlsx'));
  // A PK header and then garbage: looks like a DOCX by its name, is not one.
  await writeFile(file('broken.docx'), Buffer.concat([Buffer.from('PK\x03\x04'), Buffer.alloc(4000, 0x5a)]));
  await writeFile(CONFORMANCE_TXT, 'conformance line\n');
}, 60_000);

afterAll(async () => {
  for (const run of runs) await rm(run.workDir, { recursive: true, force: true });
  await rm(dir, { recursive: true, force: true });
  await rm(CONFORMANCE_TXT, { force: true });
});

pluginConformanceSuite(
  officeConvertPlugin,
  [
    {
      name: 'txt -> pdf',
      files: [{ path: CONFORMANCE_TXT, format: 'txt' }],
      target: 'pdf',
      expectFormat: 'pdf',
      async check(run) {
        if (!isFileResult(run.result)) throw new Error('expected a file');
        expect(await text(run.result.path)).toContain('conformance line');
      },
    },
  ],
  { against: standardPlugins },
);

describe('office-convert routes', () => {
  it('offers the LibreOffice families and EPUB from DOCX/ODT only', () => {
    expect(officeSupports('docx', 'pdf')).toBe(true);
    expect(officeSupports('doc', 'docx')).toBe(true);
    expect(officeSupports('xls', 'xlsx')).toBe(true);
    expect(officeSupports('ppt', 'pptx')).toBe(true);
    expect(officeSupports('docx', 'epub')).toBe(true);
    expect(officeSupports('odt', 'epub')).toBe(true);
    expect(officeSupports('rtf', 'epub')).toBe(false);
    expect(officeSupports('pdf', 'docx')).toBe(false);
    expect(officeSupports('docx', 'xlsx')).toBe(false);
    expect(officeSupports('pptx', 'docx')).toBe(false);
    // CSV <-> XLSX belongs to the data converters; legacy XLS and ODS reach CSV here.
    expect(officeSupports('xlsx', 'csv')).toBe(false);
    expect(officeSupports('ods', 'csv')).toBe(true);
    expect(officeSupports('xls', 'csv')).toBe(true);
  });

  it('scales the timeout with the input size: seconds for a small file, capped for a huge one', () => {
    const input = (bytes: number) => [{ path: '/x', format: 'docx' as const, filename: 'x.docx', bytes }];
    expect(officeTimeoutMs(input(1_000))).toBe(20_010);
    expect(officeTimeoutMs(input(5_000_000))).toBe(70_000);
    expect(officeTimeoutMs(input(5_000_000_000))).toBe(30 * 60_000);
  });

  it('picks the telling stderr line', () => {
    expect(
      telling(
        'Warning: failed to launch javaldx - java may not function correctly\nError: source file could not be loaded',
      ),
    ).toBe('Error: source file could not be loaded');
    expect(telling('Error: source file could not be loadedWarning: failed to launch javaldx')).toBe(
      'Error: source file could not be loaded',
    );
  });
});

/** What every LibreOffice route must keep, run with a cold soffice per run and again through the warm pool. */
function contentTests() {
  it('docx -> pdf keeps the text on one page', async () => {
    const pdf = await convert(file('report.docx'), 'docx', 'pdf');
    const content = await text(pdf);
    expect(content).toContain(HEADING);
    expect(content).toContain(PARAGRAPH);
    expect(await pages(pdf)).toBe(1);
  });

  it('docx -> odt -> txt keeps the text', async () => {
    const odt = await convert(file('report.docx'), 'docx', 'odt');
    expect((await readFile(odt)).subarray(0, 2).toString()).toBe('PK');
    const txt = await readFile(await convert(odt, 'odt', 'txt'), 'utf8');
    expect(txt).toContain(HEADING);
    expect(txt).toContain(PARAGRAPH);
  });

  it('legacy doc -> docx modernises and keeps the text', async () => {
    const made = await libreOfficeConvert({
      input: file('report.docx'),
      convertTo: 'doc:MS Word 97',
      outDir: file('legacy'),
      profileDir: file('legacy-profile'),
      timeoutMs: 60_000,
    });
    expect(made.output).toBeDefined();
    // A legacy Word file is an OLE compound file.
    expect((await readFile(made.output!)).subarray(0, 4).toString('hex')).toBe('d0cf11e0');
    const docx = await convert(made.output!, 'doc', 'docx');
    const { stdout } = await runProcess('pandoc', ['-f', 'docx', '-t', 'plain', docx], { timeoutMs: 20_000 });
    expect(stdout).toContain(HEADING);
    expect(stdout).toContain(PARAGRAPH);
  });

  it('xlsx -> ods -> xlsx keeps a cell value', async () => {
    const ods = await convert(file('sales.xlsx'), 'xlsx', 'ods');
    const xlsx = await convert(ods, 'ods', 'xlsx');
    const book = new ExcelJS.Workbook();
    await book.xlsx.readFile(xlsx);
    expect(book.getWorksheet('Sales')?.getCell('B2').value).toBe(CELL);
  });

  it('legacy xls -> csv keeps the cells', async () => {
    const made = await libreOfficeConvert({
      input: file('sales.xlsx'),
      convertTo: 'xls:MS Excel 97',
      outDir: file('legacy-xls'),
      profileDir: file('legacy-xls-profile'),
      timeoutMs: 60_000,
    });
    expect((await readFile(made.output!)).subarray(0, 4).toString('hex')).toBe('d0cf11e0');
    const csv = await readFile(await convert(made.output!, 'xls', 'csv'), 'utf8');
    expect(csv).toContain(String(CELL));
  });

  it('pptx -> pdf has one page per slide', async () => {
    const pdf = await convert(file('slides.pptx'), 'pptx', 'pdf');
    expect(await pages(pdf)).toBe(3);
    expect(await text(pdf)).toContain('Second slide');
  });

  it('docx -> epub through pandoc', async () => {
    const epub = await convert(file('report.docx'), 'docx', 'epub');
    const { stdout } = await runProcess('unzip', ['-l', epub], { timeoutMs: 10_000 });
    expect(stdout).toContain('mimetype');
    expect(stdout).toMatch(/EPUB\/text\/\S+\.xhtml/);
    const chapters = await runProcess('unzip', ['-p', epub, 'EPUB/text/*.xhtml'], { timeoutMs: 10_000 });
    expect(chapters.stdout).toContain(PARAGRAPH);
  });

  it('a damaged docx is a PluginError quoting LibreOffice', async () => {
    const error = await runPlugin(
      officeConvertPlugin,
      [{ path: file('broken.docx'), format: 'docx' }],
      {},
      { target: 'pdf', workDir: await workDir() },
    ).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(PluginError);
    expect((error as Error).message).toMatch(/Could not convert this document to PDF.*damaged/);
    expect((error as Error).message).toContain('source file could not be loaded');
  });

  it('a damaged docx -> epub is a PluginError', async () => {
    const error = await runPlugin(
      officeConvertPlugin,
      [{ path: file('broken.docx'), format: 'docx' }],
      {},
      { target: 'epub', workDir: await workDir() },
    ).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(PluginError);
  });
}

describe('office-convert content, cold soffice per run', contentTests);

describe('office-convert content, through a warm LibreOffice pool', () => {
  const quiet = { debug() {}, info() {}, warn() {}, error() {} };
  let pool: LibreOfficePool;
  beforeAll(async () => {
    pool = new LibreOfficePool({ size: 1, log: quiet });
    await pool.warm();
    useOfficeConverter(pool.convert);
  }, 120_000);
  afterAll(async () => {
    useOfficeConverter(undefined);
    await pool.close();
  });

  contentTests();

  it('ran every LibreOffice conversion above in the warm listener', () => {
    // docx->pdf, docx->odt, odt->txt, docx->doc, doc->docx, xlsx->ods, ods->xlsx, xlsx->xls, xls->csv, pptx->pdf, the
    // damaged docx.
    expect(pool.status()).toMatchObject({ mode: 'pool', conversions: 11, coldFallbacks: 0, restarts: 0 });
  });
});

describe('office-convert on small files built to stall LibreOffice', () => {
  // Tried by hand with soffice 7.4 (--convert-to pdf, docx, odt): both spin for minutes and never
  // answer. The RTF is read at about half a core with slowly growing memory; every form feed of the
  // text is a page (5,000 take 20 s, more grow faster than linearly). Their verdict must come from
  // the short deadline a small file gets (officeTimeoutMs), as a PluginError the client can read.
  const hostile: Array<[string, FormatId, Buffer]> = [
    [
      'an RTF of 1 KB declaring a 2 GB \\bin block',
      'rtf',
      Buffer.from(
        `{\\rtf1\\ansi\\deff0{\\fonttbl{\\f0 Times;}}\\f0 Hello {\\pict\\wmetafile8\\picw100\\pich100\\bin2000000000 ` +
          `${'A'.repeat(800)}}}`,
      ),
    ],
    ['a text of 100,000 form feeds', 'txt', Buffer.alloc(100_000, 0x0c)],
  ];

  it.concurrent.each(hostile)(
    '%s fails as a PluginError within its deadline, LibreOffice killed',
    async (_name, format, bytes) => {
      const input = path.join(await mkdtemp(path.join(dir, 'hostile-')), `hostile.${format}`);
      await writeFile(input, bytes);
      const deadline = officeTimeoutMs([{ path: input, format, filename: `hostile.${format}`, bytes: bytes.length }]);
      expect(deadline).toBeLessThanOrEqual(21_000);
      const runDir = await workDir();
      const started = Date.now();
      // A signal that never fires: the engine's own deadline must end the run (the runner's abort
      // would report the timeout itself).
      const error = await runPlugin(
        officeConvertPlugin,
        [{ path: input, format }],
        {},
        { target: 'pdf', workDir: runDir, signal: new AbortController().signal },
      ).catch((err: unknown) => err);
      const elapsed = Date.now() - started;
      expect(error).toBeInstanceOf(PluginError);
      expect((error as Error).message).toMatch(
        /^Could not convert this document to PDF: the conversion took too long$/,
      );
      // Its own deadline ended it (not an earlier failure), and LibreOffice (its profile is in the work dir) is gone.
      // No upper bound: a loaded machine delays the kill; a run that ignored its deadline spins for minutes and
      // meets the test's timeout.
      expect(elapsed).toBeGreaterThanOrEqual(deadline - 1_000);
      expect(await processesMentioning(runDir)).toEqual([]);
    },
    90_000,
  );
});
