/**
 * The office family descriptor: LibreOffice (the warm listener pool or a cold soffice), what the
 * family links, and its limits. Work is bounded in pages where a cheap count exists:
 * DOCX and PPTX carry the page or slide count their authoring program saved in docProps/app.xml,
 * read at acceptance without unpacking anything else; other inputs are judged by the run.
 */
import type { Plugin, PluginInput, WorkMeasure } from '../../../core/contract/index.js';
import { scaledTimeout } from '../../../core/contract/index.js';
import { SOFFICE } from '../../../core/engines/libreoffice.js';

/**
 * 20 s (a cold soffice start is ~3 s on a loaded machine, a normal document a few more) plus 10 s per MB, at most
 * 30 minutes. Short for small files on purpose: a 1 KB file built to stall LibreOffice (an RTF
 * declaring a 2 GB \bin block, a text of 100k form feeds = 100k pages) spins until killed, so
 * its verdict comes from this deadline.
 */
const bytesTimeoutMs = scaledTimeout({ baseMs: 20_000, perMbMs: 10_000, maxMs: 30 * 60_000 });
const PER_PAGE_MS = 500;
const MAX_MS = 30 * 60_000;

/**
 * The byte-based deadline plus half a second a counted page (LibreOffice lays out about 0.15 s a Word page and
 * 0.015 s a sheet page on one core). A count can lie: it only ever adds time, so a file claiming one page keeps the
 * byte-based deadline, and one claiming many is bounded by MAX_OFFICE_PAGES at acceptance.
 */
export function officeTimeoutMs(inputs: readonly PluginInput[], pages?: number): number {
  return Math.min(MAX_MS, bytesTimeoutMs(inputs) + (pages ?? 0) * PER_PAGE_MS);
}

/** Pages one conversion may carry: a long book, far below what would tie LibreOffice up for the deadline. */
export const MAX_OFFICE_PAGES = 2_000;

/**
 * Pages of a DOCX, PPTX or XLSX: the saved count or the content's estimate, whichever is larger; undefined for other
 * formats or an unreadable package.
 */
export const officePagesWork: WorkMeasure = {
  unit: 'pages',
  max: MAX_OFFICE_PAGES,
  // Loaded when a file is measured: the manifest stays free of the ZIP reader.
  measure: async (input, { signal }) => (await import('./page-count.js')).officePageCount(input, signal),
};

export const officeFamily = {
  // What it links: exceljs (MIT); LibreOffice and pandoc are declared by their engines.
  licenses: ['MIT'],
  engines: [SOFFICE],
  // A conversion keeps about one core busy (in a warm listener or a cold soffice): two at once fill two cores.
  limits: { timeoutMs: officeTimeoutMs, concurrency: 2 },
} satisfies Pick<Plugin, 'licenses' | 'engines' | 'limits'>;
