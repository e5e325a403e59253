/**
 * office-convert: office documents, spreadsheets and presentations through LibreOffice headless
 * (the service's warm listener pool, or a cold soffice per run in a private profile when the pool
 * is off or has fallen back), and DOCX/ODT -> EPUB through pandoc.
 */
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import {
  PluginError,
  definePlugin,
  scaledTimeout,
  singleInput,
  type Plugin,
  type PluginInput,
  type RunContext,
} from '../../core/contract/index.js';
import { SOFFICE, convertDocument } from '../../core/engines/libreoffice.js';
import { PANDOC, pandocConvert } from '../../core/engines/pandoc.js';
import { libreOfficePdfaOptions, pdfaOption, type PdfaLevel } from '../../core/engines/pdfa.js';
import type { FormatId } from '../../schema/index.js';
import { repairOfficePlugin } from './repair.js';

type Family = 'writer' | 'calc' | 'impress';

interface InputFormat {
  family: Family;
  /** LibreOffice import filter: forced, so a damaged file fails instead of being opened as plain text. */
  filter: string;
}

const INPUTS = {
  docx: { family: 'writer', filter: 'MS Word 2007 XML' },
  doc: { family: 'writer', filter: 'MS Word 97' },
  odt: { family: 'writer', filter: 'writer8' },
  rtf: { family: 'writer', filter: 'Rich Text Format' },
  txt: { family: 'writer', filter: 'Text (encoded):UTF8' },
  xlsx: { family: 'calc', filter: 'Calc MS Excel 2007 XML' },
  xls: { family: 'calc', filter: 'MS Excel 97' },
  ods: { family: 'calc', filter: 'calc8' },
  pptx: { family: 'impress', filter: 'Impress MS PowerPoint 2007 XML' },
  ppt: { family: 'impress', filter: 'MS PowerPoint 97' },
  odp: { family: 'impress', filter: 'impress8' },
} as const satisfies Partial<Record<FormatId, InputFormat>>;

type OfficeInput = keyof typeof INPUTS;

/** `--convert-to` values per family and output format. */
const OUTPUTS: Record<Family, Partial<Record<FormatId, string>>> = {
  writer: {
    pdf: 'pdf:writer_pdf_Export',
    docx: 'docx:MS Word 2007 XML',
    odt: 'odt:writer8',
    rtf: 'rtf:Rich Text Format',
    txt: 'txt:Text (encoded):UTF8',
  },
  calc: {
    pdf: 'pdf:calc_pdf_Export',
    xlsx: 'xlsx:Calc MS Excel 2007 XML',
    ods: 'ods:calc8',
    // First sheet, comma, double quotes, UTF-8.
    csv: 'csv:Text - txt - csv (StarCalc):44,34,76,1',
  },
  impress: {
    pdf: 'pdf:impress_pdf_Export',
    pptx: 'pptx:Impress MS PowerPoint 2007 XML',
    odp: 'odp:impress8',
  },
};

/** Pandoc readers for EPUB output. */
const EPUB_READERS: Partial<Record<FormatId, string>> = { docx: 'docx', odt: 'odt' };

/**
 * Pairs other plugins own (the registry refuses duplicates): CSV <-> XLSX belongs to the data
 * converters, so CSV is not an input here and CSV output is offered from XLS and ODS only.
 */
function excluded(from: FormatId, to: FormatId): boolean {
  return to === 'csv' && from !== 'ods' && from !== 'xls';
}

export function officeSupports(from: FormatId, to: FormatId): boolean {
  if (from === to || excluded(from, to)) return false;
  if (to === 'epub') return from in EPUB_READERS;
  const input = (INPUTS as Partial<Record<FormatId, InputFormat>>)[from];
  return input !== undefined && OUTPUTS[input.family][to] !== undefined;
}

/**
 * 20 s (a cold soffice start is ~3 s on a loaded machine, a normal document a few more) plus 10 s per MB, at most
 * 30 minutes. Short for small files on purpose: a 1 KB file built to stall LibreOffice (an RTF
 * declaring a 2 GB \bin block, a text of 100k form feeds = 100k pages) spins until killed, so
 * its verdict comes from this deadline.
 */
export const officeTimeoutMs = scaledTimeout({ baseMs: 20_000, perMbMs: 10_000, maxMs: 30 * 60_000 });

const KIND_NAMES: Record<Family, string> = { writer: 'document', calc: 'spreadsheet', impress: 'presentation' };

async function viaLibreOffice(
  input: PluginInput,
  from: OfficeInput,
  to: FormatId,
  ctx: RunContext,
  pdfa?: PdfaLevel,
): Promise<string> {
  const { family, filter } = INPUTS[from];
  // PDF/A: LibreOffice's own PDF/A export (fonts embedded, sRGB OutputIntent, XMP pdfaid).
  const convertTo = `${OUTPUTS[family][to]!}${pdfa ? `:${libreOfficePdfaOptions(pdfa)}` : ''}`;
  // A fixed name: soffice names its output after the input, and client names can be anything.
  const inDir = path.join(ctx.workDir, 'in');
  await mkdir(inDir, { recursive: true });
  const source = path.join(inDir, `input.${from}`);
  await copyFile(input.path, source);
  ctx.progress(5);
  return convertDocument(
    {
      input: source,
      convertTo,
      inputFilter: filter,
      outDir: path.join(ctx.workDir, 'out'),
      profileDir: path.join(ctx.workDir, 'lo-profile'),
      summary: `Could not convert this ${KIND_NAMES[family]} to ${to.toUpperCase()}`,
      inputLabel: from.toUpperCase(),
    },
    ctx,
  );
}

async function viaPandoc(input: PluginInput, from: FormatId, ctx: RunContext): Promise<string> {
  const outDir = path.join(ctx.workDir, 'out');
  await mkdir(outDir, { recursive: true });
  const output = path.join(outDir, 'output.epub');
  // A default title (EPUB requires one); a title in the document's own metadata wins over a metadata file.
  const metadata = path.join(ctx.workDir, 'metadata.yaml');
  const title = path.parse(input.filename).name || 'Document';
  await writeFile(metadata, `title: ${JSON.stringify(title)}\n`);
  await pandocConvert(
    {
      input: input.path,
      from: EPUB_READERS[from]!,
      to: 'epub3',
      output,
      metadataFile: metadata,
      workDir: ctx.workDir,
      summary: `Could not convert this ${from.toUpperCase()} to EPUB (the file may be damaged)`,
    },
    ctx,
  );
  return output;
}

export const officeConvertPlugin = definePlugin({
  id: 'office-convert',
  kind: 'convert',
  title: 'Office documents, spreadsheets and presentations (LibreOffice)',
  inputs: Object.keys(INPUTS) as OfficeInput[],
  outputs: ['pdf', 'docx', 'odt', 'rtf', 'txt', 'epub', 'xlsx', 'ods', 'csv', 'pptx', 'odp'],
  supports: officeSupports,
  options: z.object({ pdfa: pdfaOption.optional() }),
  plan: 'free',
  // What it links: exceljs (MIT); LibreOffice and pandoc are declared by their engines.
  licenses: ['MIT'],
  engines: [SOFFICE, PANDOC],
  // A conversion keeps about one core busy (in a warm listener or a cold soffice): two at once fill two cores.
  limits: { timeoutMs: officeTimeoutMs, concurrency: 2 },
  async run(inputs, options, ctx) {
    ctx.signal.throwIfAborted();
    const input = singleInput(inputs);
    const from = input.format;
    const to = ctx.target;
    if (!officeSupports(from, to)) throw new PluginError(`office-convert cannot convert ${from} to ${to}`);
    if (options.pdfa && to !== 'pdf') throw new PluginError(`pdfa applies to to=pdf only, not to=${to}`);
    const output =
      to === 'epub'
        ? await viaPandoc(input, from, ctx)
        : await viaLibreOffice(input, from as OfficeInput, to, ctx, options.pdfa);
    ctx.progress(100);
    return { path: output, format: to };
  },
});

export const officePlugins: Plugin[] = [officeConvertPlugin, repairOfficePlugin];
