/** pdf-merge (op merge-pdf): several PDFs into one, in the order given; at most 10,000 pages in all. */
import { definePlugin } from '../../../core/contract/index.js';
import { QPDF_REWRITE, pdfFamily, pdfLimits } from '../shared/family.js';
import { noOptions } from '../shared/options.js';
import { MAX_FILES, MIN_FILES } from './files.js';

export const mergePdfPlugin = definePlugin({
  ...pdfFamily,
  id: 'pdf-merge',
  kind: 'tool',
  op: 'merge-pdf',
  title: 'Merge PDFs',
  inputs: ['pdf'],
  options: noOptions,
  plan: 'pro',
  limits: pdfLimits({ ...QPDF_REWRITE, inputs: { min: MIN_FILES, max: MAX_FILES } }),
  run: async (inputs, _options, ctx) => (await import('./run.js')).mergePdfs(inputs, ctx),
});
