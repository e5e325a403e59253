/**
 * The PDF family descriptor: what its tools link, the engine they all open PDFs with, and their
 * limits. Work is bounded in pages: qpdf counts them at acceptance (cheap: it reads the
 * page tree, never the content), a job past the tool's maximum is refused with a 400 naming the
 * limit, and the deadline grows with the pages as well as with the bytes.
 */
import type { Plugin, PluginInput, PluginLimits, WorkMeasure } from '../../../core/contract/index.js';
import { QPDF, measurePdfPages } from '../../../core/engines/qpdf.js';

const MB = 1024 * 1024;
const BASE_MS = 60_000;
const MAX_MS = 6 * 3600_000;

/** The page count of a PDF, by qpdf; an encrypted or unreadable file is left to the run (its own messages). */
export function pdfPagesWork(max: number): WorkMeasure {
  return { unit: 'pages', max, measure: measurePdfPages };
}

export interface PdfCost {
  /** Seconds of deadline per MB of input: qpdf reads and rewrites; ghostscript re-renders every image. */
  secondsPerMegabyte: number;
  /** Seconds of deadline per page (added when the pages were counted). */
  secondsPerPage: number;
  /** Most pages one job may carry. */
  maxPages: number;
  /** How many files one job takes (merge-pdf); one by default. */
  inputs?: { min: number; max: number };
}

/** A minute, plus the inputs' size and page count at the tool's rates; at most 6 hours. */
export function pdfLimits({ secondsPerMegabyte, secondsPerPage, maxPages, inputs }: PdfCost): PluginLimits {
  return {
    timeoutMs: (files: readonly PluginInput[], pages?: number) => {
      const bytes = files.reduce((sum, file) => sum + file.bytes, 0);
      const ms = BASE_MS + Math.ceil((bytes / MB) * secondsPerMegabyte * 1000) + (pages ?? 0) * secondsPerPage * 1000;
      return Math.min(MAX_MS, ms);
    },
    work: pdfPagesWork(maxPages),
    concurrency: 2,
    ...(inputs ? { inputs } : {}),
  };
}

/**
 * qpdf rewrites (rotate, pages, passwords, metadata, repair, merge): about 20 ms a page plus the
 * read time, so 10,000 pages fit in minutes.
 */
export const QPDF_REWRITE: PdfCost = { secondsPerMegabyte: 1, secondsPerPage: 0.1, maxPages: 10_000 };

/** Ghostscript's pdfwrite interprets and re-encodes every page: some 0.2 s a page here, given 1 s. */
export const GHOSTSCRIPT_RENDER: PdfCost = { secondsPerMegabyte: 10, secondsPerPage: 1, maxPages: 2_000 };

export const pdfFamily = {
  // What it links: pdf-lib and yazl (MIT), sharp (Apache-2.0) with libvips (LGPL-3.0-or-later); engines declare their
  // own.
  licenses: ['MIT', 'Apache-2.0', 'LGPL-3.0-or-later'],
  engines: [QPDF],
  limits: pdfLimits(QPDF_REWRITE),
} satisfies Pick<Plugin, 'licenses' | 'engines' | 'limits'>;
