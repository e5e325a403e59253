/**
 * Test support for repair-office: DOCX and PPTX written by pandoc, an XLSX by exceljs, the ways
 * to damage them (central directory, truncation, CRCs, parts and package metadata), and what
 * LibreOffice reads back from a file (its text), which is how a repair is judged.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import { libreOfficeConvert } from '../../../core/engines/libreoffice.js';
import { runProcess } from '../../../core/engines/process.js';

/** 40 numbered paragraphs: enough deflated XML to cut word/document.xml in its middle. */
export const DOC_PARAGRAPHS = Array.from(
  { length: 40 },
  (_, i) =>
    `Paragraph ${i + 1} of the ledger: the quartermaster counted ${(i + 1) * 37} barrels of salted herring in hold ` +
    `${(i % 4) + 1}.`,
);
export const SHEET_CELLS = [
  ['Harbour', 'Ships'],
  ['Rotterdam', '4217'],
  ['Hamburg', '3120'],
];
export const SLIDE_TITLES = ['Tides of the Northern Sea', 'Lighthouse Keepers'];

export async function makeDocx(file: string): Promise<void> {
  const md = `${file}.md`;
  await writeFile(md, `# Ship Ledger\n\n${DOC_PARAGRAPHS.join('\n\n')}\n`);
  await runProcess('pandoc', ['-f', 'markdown', '-t', 'docx', '-o', file, md], {
    timeoutMs: 30_000,
    cwd: path.dirname(file),
  });
}

export async function makePptx(file: string): Promise<void> {
  const md = `${file}.md`;
  await writeFile(
    md,
    SLIDE_TITLES.map((title, i) => `# ${title}\n\n- Point ${i + 1} about ${title.toLowerCase()}\n`).join('\n'),
  );
  await runProcess('pandoc', ['-f', 'markdown', '-t', 'pptx', '-o', file, md], {
    timeoutMs: 30_000,
    cwd: path.dirname(file),
  });
}

export async function makeXlsx(file: string): Promise<void> {
  const workbook = new ExcelJS.Workbook();
  workbook.addWorksheet('Ports').addRows(SHEET_CELLS.map((row) => [row[0], Number(row[1]) || row[1]]));
  workbook.addWorksheet('Second').addRow(['Second sheet survives']);
  await workbook.xlsx.writeFile(file);
}

interface ZipEntryInfo {
  name: string;
  localOffset: number;
  dataStart: number;
  compressedSize: number;
  centralOffset: number;
}

/** The entries as the central directory lists them. */
export function zipEntries(bytes: Buffer): { entries: ZipEntryInfo[]; centralStart: number; end: number } {
  const end = bytes.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  const centralStart = bytes.readUInt32LE(end + 16);
  const entries: ZipEntryInfo[] = [];
  for (let at = centralStart; bytes.readUInt32LE(at) === 0x02014b50; ) {
    const nameLength = bytes.readUInt16LE(at + 28);
    const localOffset = bytes.readUInt32LE(at + 42);
    const dataStart = localOffset + 30 + bytes.readUInt16LE(localOffset + 26) + bytes.readUInt16LE(localOffset + 28);
    entries.push({
      name: bytes.subarray(at + 46, at + 46 + nameLength).toString('utf8'),
      localOffset,
      dataStart,
      compressedSize: bytes.readUInt32LE(at + 20),
      centralOffset: at,
    });
    at += 46 + nameLength + bytes.readUInt16LE(at + 30) + bytes.readUInt16LE(at + 32);
  }
  return { entries, centralStart, end };
}

export const damage = {
  /** The central directory overwritten with junk and the end record pointing nowhere. */
  centralDirectory(bytes: Buffer): Buffer {
    const out = Buffer.from(bytes);
    const { centralStart, end } = zipEntries(bytes);
    out.fill(0x5a, centralStart, end);
    out.writeUInt32LE(0xfffffff0, end + 16);
    return out;
  },
  /**
   * Cut `fraction` of the way into the data of `part`: everything after it (the central directory included) is gone.
   */
  truncateIn(bytes: Buffer, part: string, fraction: number): Buffer {
    const entry = zipEntries(bytes).entries.find((e) => e.name === part);
    if (!entry) throw new Error(`no ${part}`);
    return bytes.subarray(0, entry.dataStart + Math.floor(entry.compressedSize * fraction));
  },
  /** Every CRC-32, in local and central headers, wrong. */
  crcs(bytes: Buffer): Buffer {
    const out = Buffer.from(bytes);
    for (const entry of zipEntries(bytes).entries) {
      out.writeUInt32LE((out.readUInt32LE(entry.localOffset + 14) ^ 0xdeadbeef) >>> 0, entry.localOffset + 14);
      out.writeUInt32LE((out.readUInt32LE(entry.centralOffset + 16) ^ 0xdeadbeef) >>> 0, entry.centralOffset + 16);
    }
    return out;
  },
  /** The package rewritten with `edit` applied to its parts (names -> bytes). */
  parts(bytes: Buffer, edit: (parts: Record<string, Uint8Array>) => void): Buffer {
    const parts = unzipSync(new Uint8Array(bytes));
    edit(parts);
    return Buffer.from(zipSync(parts));
  },
};

export { strFromU8, strToU8, unzipSync };

/**
 * The text LibreOffice reads from a DOCX, XLSX (first sheet as CSV) or PPTX (through PDF); throws when it cannot open
 * it.
 */
export async function libreOfficeText(file: string, kind: 'docx' | 'xlsx' | 'pptx', dir: string): Promise<string> {
  const outDir = path.join(dir, `read-${path.basename(file)}-${Date.now()}`);
  const [filter, convertTo] = {
    docx: ['MS Word 2007 XML', 'txt:Text (encoded):UTF8'],
    xlsx: ['Calc MS Excel 2007 XML', 'csv:Text - txt - csv (StarCalc):44,34,76,1'],
    pptx: ['Impress MS PowerPoint 2007 XML', 'pdf:impress_pdf_Export'],
  }[kind];
  const { output } = await libreOfficeConvert({
    input: file,
    convertTo: convertTo!,
    inputFilter: filter!,
    outDir,
    profileDir: path.join(dir, 'lo-read-profile'),
    timeoutMs: 60_000,
  });
  if (!output) throw new Error(`LibreOffice could not open ${path.basename(file)}`);
  if (kind !== 'pptx') return (await readFile(output, 'utf8')).replace(/^\uFEFF/, '');
  return (await runProcess('pdftotext', ['-enc', 'UTF-8', output, '-'], { timeoutMs: 15_000 })).stdout;
}
