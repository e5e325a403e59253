/**
 * The document family: office, web and spreadsheet files read into the document model
 * (schema/document.ts), and what is made from it (op=structure, op=chunk, Markdown, HTML and
 * text). DOCX, ODT, RTF, EPUB, HTML and Markdown are read through pandoc's JSON AST; PPTX, ODS
 * from their XML; XLSX through ExcelJS; CSV through csv-parse. PDFs are the markdown family's.
 */
import type { Plugin } from '../../../core/contract/index.js';
import { scaledTimeout } from '../../../core/contract/index.js';
import { PANDOC } from '../../../core/engines/pandoc.js';
import { MB } from '../../../schema/index.js';

/** The inputs this family reads. */
export const DOCUMENT_INPUTS = ['docx', 'odt', 'rtf', 'epub', 'html', 'md', 'pptx', 'xlsx', 'ods', 'csv'] as const;
export type DocumentInput = (typeof DOCUMENT_INPUTS)[number];

/** Slides, sheets and cells one run reads at most (a deck, a workbook of tables; not a database). */
export const MAX_SLIDES = 2_000;
export const MAX_SHEETS = 500;
export const MAX_CELLS = 1_000_000;
/** What a ZIP-based input may inflate to, and how many parts it may hold. */
export const MAX_INFLATED_BYTES = 500 * MB;
export const MAX_PARTS = 20_000;
/** The largest CSV read, and the largest AST pandoc may write. */
export const MAX_TEXT_BYTES = 100 * MB;
export const MAX_AST_BYTES = 400 * MB;

export const documentFamily = {
  // What it links: exceljs, csv-parse, fflate and js-tiktoken (op=chunk's cl100k), all MIT; pandoc is an engine.
  licenses: ['MIT'],
  engines: [PANDOC],
  // pandoc reads a 100-page DOCX in a second or two; 30 s plus 10 s a MB, at most 30 minutes.
  limits: {
    timeoutMs: scaledTimeout({ baseMs: 30_000, perMbMs: 10_000, maxMs: 30 * 60_000 }),
    concurrency: 2,
    memoryMb: 1536,
  },
} satisfies Pick<Plugin, 'licenses' | 'engines' | 'limits'>;
