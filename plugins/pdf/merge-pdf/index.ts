/**
 * pdf-merge (op merge-pdf): several PDFs into one, in the order given; at most 10,000 pages in all.
 * Office files (DOCX, XLSX, PPTX, ODF, legacy and RTF) are converted to PDF by LibreOffice first.
 */
import type { PluginInput } from '../../../core/contract/index.js';
import { definePlugin } from '../../../core/contract/index.js';
import { SOFFICE } from '../../../core/engines/libreoffice.js';
import { OFFICE_INPUTS, type OfficeInput } from '../../../core/engines/office-formats.js';
import { QPDF_REWRITE, pdfFamily, pdfLimits } from '../shared/family.js';
import { noOptions } from '../shared/options.js';
import { MAX_FILES, MIN_FILES } from './files.js';

const pdfMergeLimits = pdfLimits({ ...QPDF_REWRITE, inputs: { min: MIN_FILES, max: MAX_FILES } });
const byteTimeout = pdfMergeLimits.timeoutMs as (files: readonly PluginInput[], pages?: number) => number;
/** Per office file: a LibreOffice conversion's 20 s, plus 10 s per MB. */
const officeMs = (files: readonly PluginInput[]) =>
  files
    .filter((file) => file.format !== 'pdf')
    .reduce((sum, file) => sum + 20_000 + Math.ceil((file.bytes / 1_000_000) * 10_000), 0);

export const mergePdfPlugin = definePlugin({
  ...pdfFamily,
  engines: [...pdfFamily.engines, SOFFICE],
  id: 'pdf-merge',
  kind: 'tool',
  op: 'merge-pdf',
  title: 'Merge PDFs',
  inputs: ['pdf', ...(Object.keys(OFFICE_INPUTS) as OfficeInput[])],
  options: noOptions,
  plan: 'pro',
  limits: {
    ...pdfMergeLimits,
    timeoutMs: (files: readonly PluginInput[], pages?: number) => byteTimeout(files, pages) + officeMs(files),
  },
  run: async (inputs, _options, ctx) => (await import('./run.js')).mergePdfs(inputs, ctx),
});
