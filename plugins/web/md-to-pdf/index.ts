import { definePlugin } from '../../../core/contract/index.js';
import { webFamily } from '../shared/family.js';
import { mdToPdfOptions } from './options.js';

export const mdToPdfPlugin = definePlugin({
  ...webFamily,
  id: 'md-to-pdf',
  kind: 'convert',
  title: 'Markdown to PDF (Chromium)',
  inputs: ['md'],
  outputs: ['pdf'],
  options: mdToPdfOptions,
  plan: 'free',
  // micromark and its GFM extension (MIT).
  licenses: [...webFamily.licenses, 'MIT'],
  run: async (inputs, options, ctx) => (await import('./run.js')).mdToPdf(inputs, options, ctx),
});
