import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  PluginError,
  singleInput,
  type FileResult,
  type PluginInput,
  type RunContext,
} from '../../../core/contract/index.js';
import { convertDocument } from '../../../core/engines/libreoffice.js';
import { pandocConvert } from '../../../core/engines/pandoc.js';
import { libreOfficePdfaOptions, type PdfaLevel } from '../../../core/engines/pdfa.js';
import type { FormatId } from '../../../schema/index.js';
import { EPUB_READERS, INPUTS, OUTPUTS, officeSupports, type Family, type OfficeInput } from './formats.js';

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

export async function convertOffice(
  inputs: readonly PluginInput[],
  options: { pdfa?: PdfaLevel | undefined },
  ctx: RunContext,
): Promise<FileResult> {
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
  ctx.signal.throwIfAborted();
  ctx.progress(100);
  return { path: output, format: to };
}
