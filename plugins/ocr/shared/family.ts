/** The ocr family's descriptor: its engines and default limits (the deadline follows the page count). */
import type { Plugin } from '../../../core/contract/index.js';
import { GHOSTSCRIPT } from '../../../core/engines/ghostscript.js';
import { OCRMYPDF } from '../../../core/engines/ocrmypdf.js';
import { QPDF } from '../../../core/engines/qpdf.js';
import { TESSERACT } from '../../../core/engines/tesseract.js';
import { ocrTimeoutMs, ocrWork } from './limits.js';

export const ocrFamily = {
  // Links nothing beyond Node: every engine is a process, each declaring its own licence.
  licenses: [],
  // ocrmypdf drives tesseract and rasterises pages with ghostscript; qpdf opens the input first.
  engines: [QPDF, OCRMYPDF, TESSERACT, GHOSTSCRIPT],
  limits: { timeoutMs: ocrTimeoutMs, work: ocrWork, concurrency: 2 },
} satisfies Pick<Plugin, 'licenses' | 'engines' | 'limits'>;
