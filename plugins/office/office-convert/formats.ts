/** What office-convert converts: the LibreOffice filters per input and output, and pandoc's EPUB readers. */
import {
  OFFICE_INPUTS,
  type OfficeFamily,
  type OfficeInput,
  type OfficeInputFormat,
} from '../../../core/engines/office-formats.js';
import type { FormatId } from '../../../schema/index.js';

export type Family = OfficeFamily;

export const INPUTS = OFFICE_INPUTS;

export type { OfficeInput };

/** `--convert-to` values per family and output format. */
export const OUTPUTS: Record<Family, Partial<Record<FormatId, string>>> = {
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
export const EPUB_READERS: Partial<Record<FormatId, string>> = { docx: 'docx', odt: 'odt' };

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
  const input = (INPUTS as Partial<Record<FormatId, OfficeInputFormat>>)[from];
  return input !== undefined && OUTPUTS[input.family][to] !== undefined;
}
