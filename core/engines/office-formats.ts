/**
 * What LibreOffice reads and how an office file becomes a PDF: shared by office-convert and by the
 * merge (which takes office files beside PDFs, converted first).
 */
import { copyFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { PluginError } from '../contract/index.js';
import type { FormatId } from '../../schema/index.js';
import type { EngineContext } from './common.js';
import { convertDocument } from './libreoffice.js';
import { PASSWORD_NEEDED, officeEncryption } from './office-crypto.js';

export type OfficeFamily = 'writer' | 'calc' | 'impress';

export interface OfficeInputFormat {
  family: OfficeFamily;
  /** LibreOffice import filter: forced, so a damaged file fails instead of being opened as plain text. */
  filter: string;
}

export const OFFICE_INPUTS = {
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
} as const satisfies Partial<Record<FormatId, OfficeInputFormat>>;

export type OfficeInput = keyof typeof OFFICE_INPUTS;

/** The PDF export filter of each family. */
export const PDF_EXPORT: Record<OfficeFamily, string> = {
  writer: 'pdf:writer_pdf_Export',
  calc: 'pdf:calc_pdf_Export',
  impress: 'pdf:impress_pdf_Export',
};

export const isOfficeInput = (format: FormatId): format is OfficeInput => format in OFFICE_INPUTS;

/**
 * One office file to PDF with LibreOffice's defaults (comments left out, tracked changes as the
 * document shows them), under `dir`; an encrypted file is refused (no password here).
 */
export async function officeFileToPdf(
  input: { path: string; format: OfficeInput; label: string },
  dir: string,
  ctx: EngineContext,
): Promise<string> {
  const { family, filter } = OFFICE_INPUTS[input.format];
  if ((await officeEncryption(input.path, ctx)) !== 'none')
    throw new PluginError(`${input.label} cannot be opened: ${PASSWORD_NEEDED.replace(': send `password`', '')}`);
  const source = path.join(dir, 'in', `input.${input.format}`);
  await mkdir(path.dirname(source), { recursive: true });
  await copyFile(input.path, source);
  const settings = JSON.stringify({ ExportNotes: { type: 'boolean', value: 'false' } });
  return convertDocument(
    {
      input: source,
      convertTo: `${PDF_EXPORT[family]}:${settings}`,
      inputFilter: filter,
      outDir: path.join(dir, 'out'),
      profileDir: path.join(dir, 'lo-profile'),
      summary: `${input.label} could not be converted to PDF`,
      inputLabel: input.format.toUpperCase(),
    },
    ctx,
  );
}
