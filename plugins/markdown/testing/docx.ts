/**
 * Test support for PDF -> DOCX: a known DOCX (pandoc from Markdown: two heading levels, wrapped
 * paragraphs, a list, a 3 x 4 table) printed to PDF by LibreOffice, and a reader of a DOCX's
 * word/document.xml (paragraphs with their style, tables as cell grids).
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { unzipSync } from 'fflate';
import { libreOfficeConvert } from '../../../core/engines/libreoffice.js';
import { runProcess } from '../../../core/engines/process.js';

export const HEADINGS = [
  { level: 1, text: 'Annual Report of the Harbour Board' },
  { level: 2, text: 'Results of the Year' },
  { level: 2, text: 'Outlook for Next Year' },
];
export const PARAGRAPHS = [
  'The harbour board met eleven times this year and agreed on a new plan for the northern quay, which had been ' +
    'closed since the storm of last winter damaged its pilings beyond any simple repair.',
  'Traffic grew in every season, and the board thanks the pilots, the lock keepers and the crews of the two tugs for ' +
    'keeping every vessel moving safely through the narrow channel at all hours.',
  'Next year the board expects the northern quay to reopen in spring, after which the ferry timetable will return to ' +
    'its summer frequency and the fish market will move back to its old hall.',
];
export const LIST_ITEMS = ['Dredging of the inner basin', 'New lights on the breakwater'];
export const TABLE = [
  ['Quarter', 'Vessels', 'Tonnage'],
  ['First', '412', '58200'],
  ['Second', '455', '61750'],
  ['Third', '498', '66100'],
];

const MARKDOWN = [
  `# ${HEADINGS[0]!.text}`,
  PARAGRAPHS[0],
  `## ${HEADINGS[1]!.text}`,
  PARAGRAPHS[1],
  LIST_ITEMS.map((item) => `- ${item}`).join('\n'),
  [`| ${TABLE[0]!.join(' | ')} |`, '|---|---|---|', ...TABLE.slice(1).map((row) => `| ${row.join(' | ')} |`)].join(
    '\n',
  ),
  `## ${HEADINGS[2]!.text}`,
  PARAGRAPHS[2],
].join('\n\n');

/** Writes `<dir>/report.docx` (pandoc) and `<dir>/report.pdf` (LibreOffice); returns the PDF's path. */
export async function reportPdf(dir: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, 'report.md'), MARKDOWN);
  const docx = path.join(dir, 'report.docx');
  await runProcess('pandoc', ['-f', 'markdown', '-t', 'docx', '-o', docx, path.join(dir, 'report.md')], {
    timeoutMs: 30_000,
    cwd: dir,
  });
  const { output } = await libreOfficeConvert({
    input: docx,
    convertTo: 'pdf:writer_pdf_Export',
    outDir: dir,
    profileDir: path.join(dir, 'lo-profile'),
    timeoutMs: 60_000,
  });
  if (!output) throw new Error('LibreOffice wrote no PDF');
  return output;
}

export interface DocxContent {
  /** Body paragraphs outside tables, in order: style id (Heading1, ListParagraph... or '') and text. */
  paragraphs: Array<{ style: string; text: string; numbered: boolean }>;
  tables: string[][][];
}

const decodeXml = (s: string) =>
  s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');
const textOf = (xml: string) =>
  [...xml.matchAll(/<w:t(?:\s[^>]*)?>([^<]*)<\/w:t>/g)].map((m) => decodeXml(m[1]!)).join('');

export async function readDocx(file: string): Promise<DocxContent> {
  const entries = unzipSync(new Uint8Array(await readFile(file)));
  const xml = Buffer.from(entries['word/document.xml']!).toString('utf8');
  const tables: string[][][] = [];
  const withoutTables = xml.replace(/<w:tbl>[\s\S]*?<\/w:tbl>/g, (table) => {
    tables.push(
      [...table.matchAll(/<w:tr[ >][\s\S]*?<\/w:tr>/g)].map((row) =>
        [...row[0].matchAll(/<w:tc>[\s\S]*?<\/w:tc>/g)].map((cell) => textOf(cell[0])),
      ),
    );
    return '';
  });
  const paragraphs = [...withoutTables.matchAll(/<w:p[ >][\s\S]*?<\/w:p>/g)].map((p) => ({
    style: /<w:pStyle w:val="([^"]+)"/.exec(p[0])?.[1] ?? '',
    text: textOf(p[0]),
    numbered: /<w:numPr>/.test(p[0]),
  }));
  return { paragraphs: paragraphs.filter((p) => p.text.trim() !== ''), tables };
}

/** The report's first page as a scan: rendered at 200 dpi by pdftoppm, placed as the only content of a PDF page. */
export async function scannedReportPdf(dir: string, pdf: string): Promise<string> {
  const { PDFDocument } = await import('pdf-lib');
  const prefix = path.join(dir, 'scan');
  await runProcess('pdftoppm', ['-r', '200', '-gray', '-png', '-f', '1', '-l', '1', '-singlefile', pdf, prefix], {
    timeoutMs: 30_000,
  });
  const doc = await PDFDocument.create();
  const png = await doc.embedPng(await readFile(`${prefix}.png`));
  const page = doc.addPage([png.width * 0.36, png.height * 0.36]);
  page.drawImage(png, { x: 0, y: 0, width: page.getWidth(), height: page.getHeight() });
  const file = path.join(dir, 'scanned-report.pdf');
  await writeFile(file, await doc.save());
  return file;
}

/** A line of text full of characters Markdown would read as syntax. */
export const LITERAL_TEXT = 'Odd text: 2*3*4 <b>bold</b> &amp; file_name [x](y) :smile: ~tilde~ `code` \\ end';

export async function literalPdf(dir: string): Promise<string> {
  const { PDFDocument, StandardFonts } = await import('pdf-lib');
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  doc.addPage([612, 792]).drawText(LITERAL_TEXT, { x: 40, y: 700, size: 11, font });
  const file = path.join(dir, 'literal.pdf');
  await writeFile(file, await doc.save());
  return file;
}
