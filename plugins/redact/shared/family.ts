/**
 * The redact family descriptor: MuPDF (WASM) linked, qpdf to open the input first, and limits
 * bounded in pages: qpdf counts them at acceptance, and the deadline grows with them.
 */
import type { Plugin, PluginInput } from '../../../core/contract/index.js';
import { QPDF, measurePdfPages } from '../../../core/engines/qpdf.js';

const MB = 1024 * 1024;
/** MuPDF reads and rewrites every page in memory: 75 ms for a small document, a few seconds per MB of dense pages. */
const BASE_MS = 60_000;
const PER_MB_MS = 10_000;
const PER_PAGE_MS = 1000;
const MAX_MS = 6 * 3600_000;
/** Pages one redaction may carry: a long report, not a whole archive. */
export const MAX_REDACT_PAGES = 2_000;

export const redactFamily = {
  // What it links: mupdf (MuPDF compiled to WASM, AGPL-3.0-or-later).
  licenses: ['AGPL-3.0-or-later'],
  engines: [QPDF],
  limits: {
    timeoutMs: (inputs: readonly PluginInput[], pages?: number) => {
      const bytes = inputs.reduce((sum, input) => sum + input.bytes, 0);
      return Math.min(MAX_MS, BASE_MS + Math.ceil((bytes / MB) * PER_MB_MS) + (pages ?? 0) * PER_PAGE_MS);
    },
    work: { unit: 'pages', max: MAX_REDACT_PAGES, measure: measurePdfPages },
    concurrency: 2,
    memoryMb: 1536,
  },
} satisfies Pick<Plugin, 'licenses' | 'engines' | 'limits'>;
