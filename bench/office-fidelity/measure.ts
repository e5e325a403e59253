/**
 * The office fidelity measure (run.ts prints it, figures.ts turns it into ratchet figures): each file of the corpus
 * converted to PDF by office-convert's own run on a warm, confined LibreOffice listener, as the service converts it
 * (the page measure, its refusal past the limit and the deadline it gives), and compared with its package: pages,
 * word recall, images, hidden slides and comments (README.md).
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { isFileResult } from '../../core/contract/index.js';
import { LibreOfficePool } from '../../core/engines/execution/libreoffice-pool.js';
import { useOfficeConverter } from '../../core/engines/libreoffice.js';
import { runProcess } from '../../core/engines/process.js';
import { officeConvertPlugin } from '../../plugins/office/office-convert/index.js';
import { MAX_OFFICE_PAGES, officeTimeoutMs } from '../../plugins/office/shared/family.js';
import { officePageCount } from '../../plugins/office/shared/page-count.js';
import type { FormatId } from '../../schema/index.js';
import type { FidelityRow as Row } from './figures.js';

const quiet = { debug() {}, info() {}, warn() {}, error() {} };
const run = async (cmd: string, argv: string[]) =>
  (await runProcess(cmd, argv, { timeoutMs: 120_000, captureStdout: true })).stdout;
const unzip = (file: string, ...parts: string[]) => run('unzip', ['-p', file, ...parts]).catch(() => '');
const half = (name: string) => (createHash('sha256').update(name).digest()[0]! % 2 === 0 ? 'tuning' : 'held-out');
const wordsOf = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? [];
const decodeXml = (s: string) =>
  s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');

async function savedCounts(file: string) {
  const xml = await unzip(file, 'docProps/app.xml');
  const num = (tag: string) => {
    const m = new RegExp(`<${tag}>(\\d+)<`).exec(xml);
    return m ? Number(m[1]) : undefined;
  };
  return { pages: num('Pages'), slides: num('Slides'), hidden: num('HiddenSlides') ?? 0 };
}

async function documentWords(file: string, kind: Row['kind']): Promise<string[]> {
  let xml = '';
  if (kind === 'docx') xml = await unzip(file, 'word/document.xml');
  else if (kind === 'pptx') xml = await unzip(file, 'ppt/slides/slide*.xml');
  else xml = `${await unzip(file, 'xl/sharedStrings.xml')} ${await unzip(file, 'xl/worksheets/sheet*.xml')}`;
  const texts = [...xml.matchAll(/<(?:w:t|a:t|t)(?: [^>]*)?>([^<]*)</g)].map((m) => decodeXml(m[1]!));
  return wordsOf(texts.join(' '));
}

/** Pixel sizes of the package's raster images. */
async function packageImages(file: string): Promise<Array<[number, number]>> {
  const listing = await run('unzip', ['-Z1', file]).catch(() => '');
  const media = listing.split('\n').filter((n) => /\/media\/[^/]+\.(png|jpe?g|gif|tiff?|bmp)$/i.test(n));
  const sizes: Array<[number, number]> = [];
  for (const part of media) {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'fidelity-img-'));
    try {
      await run('unzip', ['-o', '-q', file, part, '-d', dir]);
      const out = await run('identify', ['-format', '%w %h\n', path.join(dir, part)]).catch(() => '');
      const [w, h] = out.split('\n')[0]!.split(' ').map(Number);
      if (w && h) sizes.push([w, h]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
  return sizes;
}

async function pdfImages(pdf: string): Promise<Array<[number, number]>> {
  const out = await run('pdfimages', ['-list', pdf]).catch(() => '');
  return out
    .split('\n')
    .slice(2)
    .map((line) => line.trim().split(/\s+/))
    .filter((cols) => cols.length > 4 && cols[2] === 'image')
    .map((cols) => [Number(cols[3]), Number(cols[4])] as [number, number]);
}

const pageCount = async (pdf: string) => Number(/Pages:\s+(\d+)/.exec(await run('pdfinfo', [pdf]))?.[1]);
const textAnnotations = async (pdf: string) =>
  (
    (await run('qpdf', ['--qdf', '--object-streams=disable', pdf, '-']).catch(() => '')).match(/\/Subtype \/Text\b/g) ??
    []
  ).length;

/** One run as the service makes it: options parsed by the plugin's zod, the deadline from the measured pages. */
async function convert(file: string, kind: FormatId, options: Record<string, unknown>): Promise<string> {
  const workDir = await mkdtemp(path.join(os.tmpdir(), 'fidelity-run-'));
  const inputs = [{ path: file, format: kind, filename: path.basename(file), bytes: (await stat(file)).size }];
  const pages = await officePageCount(inputs[0]!, AbortSignal.timeout(30_000)).catch(() => undefined);
  // The service refuses such a file at acceptance.
  if (pages !== undefined && pages > MAX_OFFICE_PAGES) throw new Error(`refused: measured ${pages} pages`);
  const deadline = Date.now() + officeTimeoutMs(inputs, pages);
  const result = await officeConvertPlugin.run(inputs, officeConvertPlugin.options.parse(options), {
    target: 'pdf',
    workDir,
    signal: AbortSignal.timeout(deadline - Date.now()),
    progress: () => undefined,
    log: quiet,
    report: () => undefined,
    remainingMs: () => Math.max(0, deadline - Date.now()),
  });
  if (!isFileResult(result)) throw new Error('no file');
  return result.path;
}

async function measure(corpus: string, name: string, kind: Row['kind']): Promise<Row> {
  const file = path.join(corpus, name);
  const row: Row = { name, kind, half: half(name), recall: 0, packageImages: 0, pdfImages: 0, imagesSized: 0 };
  const saved = await savedCounts(file);
  if (kind === 'docx') row.savedPages = saved.pages;
  if (kind === 'pptx' && saved.slides !== undefined) row.savedPages = saved.slides - saved.hidden;
  let pdf: string;
  try {
    pdf = await convert(file, kind, {});
  } catch (err) {
    row.failed = (err as Error).message.slice(0, 160);
    return row;
  }
  row.pages = await pageCount(pdf);
  const expected = await documentWords(file, kind);
  const got = new Set(wordsOf(await run('pdftotext', ['-enc', 'UTF-8', pdf, '-'])));
  row.recall = expected.length ? expected.filter((w) => got.has(w)).length / expected.length : 1;
  const inPackage = await packageImages(file);
  const inPdf = await pdfImages(pdf);
  row.packageImages = inPackage.length;
  row.pdfImages = inPdf.length;
  const sizes = new Set(inPdf.map(([w, h]) => `${w}x${h}`));
  row.imagesSized = inPackage.filter(([w, h]) => sizes.has(`${w}x${h}`)).length;
  if (kind === 'pptx' && saved.hidden > 0 && saved.slides) {
    const all = await convert(file, kind, { exportHiddenSlides: true }).catch(() => undefined);
    row.hiddenOk = all !== undefined && (await pageCount(all)) === saved.slides;
  }
  if (kind === 'docx') {
    const comments = ((await unzip(file, 'word/comments.xml')).match(/<w:comment /g) ?? []).length;
    const referenced = /commentReference/.test(await unzip(file, 'word/document.xml'));
    if (comments && referenced) {
      row.comments = comments;
      row.commentsNoneOk = (await textAnnotations(pdf)) === 0;
      const margin = await convert(file, kind, { comments: 'margin' }).catch(() => undefined);
      row.commentsMarginOk = margin !== undefined && (await textAnnotations(margin)) >= comments;
    }
  }
  return row;
}

export interface MeasureOptions {
  /** The folder of files (default: corpus/ beside this file). */
  corpus?: string;
  /** LibreOffice unconfined, seeing only the fonts installed before the Noto and metric families. */
  fontsBefore?: boolean;
  /** One kind only: docx, pptx or xlsx. */
  only?: string;
  progress?: (done: number, total: number) => void;
}

export const DEFAULT_CORPUS = path.join(import.meta.dirname, 'corpus');

export async function measureOfficeCorpus({
  corpus = DEFAULT_CORPUS,
  fontsBefore = false,
  only,
  progress,
}: MeasureOptions = {}): Promise<Row[]> {
  let fontDir: string | undefined;
  if (fontsBefore) {
    fontDir = await mkdtemp(path.join(os.tmpdir(), 'fidelity-fonts-'));
    const dirs = [
      '/usr/share/fonts/truetype/dejavu',
      '/usr/share/fonts/opentype/urw-base35',
      '/usr/share/fonts/type1/urw-base35',
      '/usr/share/fonts/opentype/ipafont-gothic',
      '/usr/share/fonts/truetype/libreoffice',
    ];
    await writeFile(
      path.join(fontDir, 'fonts.conf'),
      `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n${dirs
        .map((d) => `  <dir>${d}</dir>`)
        .join('\n')}\n  <cachedir>${fontDir}/cache</cachedir>\n` +
        '  <include ignore_missing="yes">/etc/fonts/conf.d</include>\n</fontconfig>\n',
    );
    process.env.FONTCONFIG_FILE = path.join(fontDir, 'fonts.conf');
  }
  // Confined as the service runs it; unconfined for --fonts=before (a jail keeps only the service's own variables).
  const pool = new LibreOfficePool({ size: 1, log: quiet, confine: !fontsBefore });
  await pool.warm();
  useOfficeConverter(pool.convert);
  const rows: Row[] = [];
  const names = (await readdir(corpus))
    .filter((n) => /\.(docx|pptx|xlsx)$/.test(n) && (!only || n.endsWith(`.${only}`)))
    .sort();
  for (const [i, name] of names.entries()) {
    rows.push(await measure(corpus, name, name.slice(-4) as Row['kind']));
    progress?.(i + 1, names.length);
  }
  useOfficeConverter(undefined);
  await pool.close();
  if (fontDir) await rm(fontDir, { recursive: true, force: true });
  return rows;
}
