import { copyFile, mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  PluginError,
  singleInput,
  type FileResult,
  type PluginInput,
  type RunContext,
} from '../../../core/contract/index.js';
import { convertDocument, type OfficeEdits } from '../../../core/engines/libreoffice.js';
import { PASSWORD_NEEDED, decryptOfficeFile, officeEncryption } from '../../../core/engines/office-crypto.js';
import { pandocConvert } from '../../../core/engines/pandoc.js';
import { pdfaPart } from '../../../core/engines/pdfa.js';
import { runQpdf } from '../../../core/engines/qpdf.js';
import type { FormatId } from '../../../schema/index.js';
import { EPUB_READERS, INPUTS, OUTPUTS, officeSupports, type Family, type OfficeInput } from './formats.js';
import { officeConvertOptions, type OfficeConvertOptions } from './options.js';

const KIND_NAMES: Record<Family, string> = { writer: 'document', calc: 'spreadsheet', impress: 'presentation' };

/** LibreOffice's PDF export settings (its FilterData) for the options, as JSON filter options. */
export function pdfExportSettings(options: OfficeConvertOptions): Record<string, { type: string; value: string }> {
  const settings: Record<string, { type: string; value: string }> = {};
  const bool = (name: string, value: boolean) => (settings[name] = { type: 'boolean', value: String(value) });
  const long = (name: string, value: number) => (settings[name] = { type: 'long', value: String(value) });
  if (options.pdfa) long('SelectPdfVersion', pdfaPart(options.pdfa));
  if (options.pdfua) {
    bool('PDFUACompliance', true);
    bool('UseTaggedPDF', true);
  }
  if (options.pageRanges) settings.PageRange = { type: 'string', value: options.pageRanges.replace(/\s+/g, '') };
  bool('SinglePageSheets', options.singlePageSheets);
  bool('ExportFormFields', options.exportFormFields);
  long('Quality', options.quality);
  bool('UseLosslessCompression', options.losslessImageCompression);
  if (options.maxImageResolution) {
    bool('ReduceImageResolution', true);
    long('MaxImageResolution', options.maxImageResolution);
  } else bool('ReduceImageResolution', false);
  // Comments are PDF text annotations at their anchor with `margin` (LibreOffice 7.4 cannot draw them in the
  // page margin: ExportNotesInMargin arrived later, and is asked for so a newer LibreOffice does).
  bool('ExportNotes', options.comments === 'margin');
  bool('ExportNotesInMargin', options.comments === 'margin');
  bool('ExportHiddenSlides', options.exportHiddenSlides);
  return settings;
}

/** What only UNO can do to the loaded document (no export setting exists for it). */
function editsFor(options: OfficeConvertOptions, family: Family): OfficeEdits {
  const edits: OfficeEdits = {};
  if (options.landscape) edits.landscape = true;
  if (family === 'writer') edits.showChanges = options.trackedChanges === 'markup';
  if (options.metadata) {
    const { keywords, ...rest } = options.metadata;
    edits.metadata = {
      ...rest,
      ...(keywords ? { keywords: keywords.map((keyword) => keyword.trim()).filter(Boolean) } : {}),
    };
  }
  return edits;
}

/** Options that change a PDF only: refused for other targets when set to anything but their default. */
function pdfOnlyOptionsSet(options: OfficeConvertOptions): string[] {
  const defaults = officeConvertOptions.parse({});
  const pdfOnly = [
    'pdfa',
    'pdfua',
    'landscape',
    'pageRanges',
    'singlePageSheets',
    'exportFormFields',
    'flatten',
    'quality',
    'maxImageResolution',
    'losslessImageCompression',
    'metadata',
    'comments',
    'trackedChanges',
    'exportHiddenSlides',
  ] as const;
  return pdfOnly.filter((name) => options[name] !== undefined && options[name] !== defaults[name]);
}

/**
 * The input as LibreOffice should read it: an encrypted Microsoft Office file decrypted with the
 * password (msoffcrypto), an encrypted ODF file left to LibreOffice with the password.
 */
async function openable(
  source: string,
  from: OfficeInput,
  password: string | undefined,
  ctx: RunContext,
): Promise<{ path: string; password?: string }> {
  const encryption = await officeEncryption(source, ctx);
  if (encryption === 'none') return { path: source };
  if (!password) throw new PluginError(`This ${from.toUpperCase()} cannot be opened: ${PASSWORD_NEEDED}`);
  if (encryption === 'odf') return { path: source, password };
  const decrypted = path.join(path.dirname(source), `decrypted.${from}`);
  return (await decryptOfficeFile(source, decrypted, password, ctx)) ? { path: decrypted } : { path: source, password };
}

async function viaLibreOffice(
  input: PluginInput,
  from: OfficeInput,
  to: FormatId,
  ctx: RunContext,
  options: OfficeConvertOptions,
): Promise<string> {
  const { family, filter } = INPUTS[from];
  // PDF: the export settings as JSON filter options (LibreOffice 7.4+), PDF/A and PDF/UA included.
  const convertTo =
    to === 'pdf' ? `${OUTPUTS[family][to]!}:${JSON.stringify(pdfExportSettings(options))}` : OUTPUTS[family][to]!;
  // A fixed name: soffice names its output after the input, and client names can be anything.
  const inDir = path.join(ctx.workDir, 'in');
  await mkdir(inDir, { recursive: true });
  const source = path.join(inDir, `input.${from}`);
  await copyFile(input.path, source);
  const opened = await openable(source, from, options.password, ctx);
  ctx.progress(5);
  const edits = to === 'pdf' ? editsFor(options, family) : {};
  const output = await convertDocument(
    {
      // soffice names its output after the input: a decrypted copy is converted under the input's name.
      input: opened.path === source ? source : await renamedTo(opened.path, path.join(inDir, 'plain'), from),
      convertTo,
      inputFilter: filter,
      outDir: path.join(ctx.workDir, 'out'),
      profileDir: path.join(ctx.workDir, 'lo-profile'),
      summary: `Could not convert this ${KIND_NAMES[family]} to ${to.toUpperCase()}`,
      inputLabel: from.toUpperCase(),
      ...(opened.password ? { password: opened.password } : {}),
      ...(Object.keys(edits).length ? { edits } : {}),
    },
    ctx,
  );
  if (to === 'pdf' && options.flatten) return flattened(output, ctx);
  return output;
}

/** Move `file` into `dir` as `input.<from>`. */
async function renamedTo(file: string, dir: string, from: OfficeInput): Promise<string> {
  await mkdir(dir, { recursive: true });
  const target = path.join(dir, `input.${from}`);
  await rename(file, target);
  return target;
}

/** Form fields and annotations drawn into the page content (qpdf), appearances generated where missing. */
async function flattened(pdf: string, ctx: RunContext): Promise<string> {
  const output = path.join(path.dirname(pdf), 'flattened.pdf');
  await runQpdf(
    { inputFile: pdf, outputFile: output, flattenAnnotations: 'all', generateAppearances: '' },
    ctx,
    'Could not flatten the PDF',
  );
  return output;
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

export async function convertOffice(
  inputs: readonly PluginInput[],
  options: OfficeConvertOptions,
  ctx: RunContext,
): Promise<FileResult> {
  ctx.signal.throwIfAborted();
  const input = singleInput(inputs);
  const from = input.format;
  const to = ctx.target;
  if (!officeSupports(from, to)) throw new PluginError(`office-convert cannot convert ${from} to ${to}`);
  if (to !== 'pdf') {
    const set = pdfOnlyOptionsSet(options);
    if (set.length)
      throw new PluginError(`${set.join(', ')} ${set.length === 1 ? 'applies' : 'apply'} to to=pdf only, not to=${to}`);
  }
  if (to === 'epub' && (await officeEncryption(input.path, ctx)) !== 'none')
    throw new PluginError(`This ${from.toUpperCase()} cannot be converted to EPUB: it is password-protected`);
  const output =
    to === 'epub'
      ? await viaPandoc(input, from, ctx)
      : await viaLibreOffice(input, from as OfficeInput, to, ctx, options);
  ctx.signal.throwIfAborted();
  ctx.progress(100);
  return { path: output, format: to };
}
