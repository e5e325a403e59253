/**
 * repair-pdf, best effort: qpdf reads what it can of a damaged file (rebuilding a broken
 * cross-reference table, skipping unreadable objects) and writes a complete, consistent new
 * file with fresh object streams. On the way, scripts that run without a click are removed:
 * - /OpenAction when it is an action (JavaScript, Launch, ...); a plain "open at page N"
 *   destination is kept,
 * - every /AA (additional actions: on page open/close, on field focus, before print or save...),
 * - the document-level JavaScript name tree (/Names /JavaScript), run when the file opens.
 * Link actions the reader has to click are left alone. A file qpdf cannot read at all is refused.
 */
import { definePlugin } from '../../../core/contract/index.js';
import { QPDF_REWRITE, pdfFamily, pdfLimits } from '../shared/family.js';
import { noOptions } from '../shared/options.js';

export const repairPdfPlugin = definePlugin({
  ...pdfFamily,
  id: 'repair-pdf',
  kind: 'tool',
  op: 'repair-pdf',
  title: 'Repair a PDF',
  inputs: ['pdf'],
  options: noOptions,
  plan: 'pro',
  limits: pdfLimits({ ...QPDF_REWRITE, secondsPerMegabyte: 2 }),
  run: async (inputs, _options, ctx) => (await import('./run.js')).repairPdf(inputs, ctx),
});
