import { definePlugin } from '../../../core/contract/index.js';
import { webFamily } from '../shared/family.js';
import { htmlToPdfOptions } from './options.js';

export const htmlToPdfPlugin = definePlugin({
  ...webFamily,
  id: 'html-to-pdf',
  kind: 'convert',
  title: 'HTML to PDF (Chromium)',
  // zip: a folder with index.html and its assets (images, fonts, CSS).
  inputs: ['html', 'zip'],
  outputs: ['pdf'],
  options: htmlToPdfOptions,
  plan: 'free',
  run: async (inputs, options, ctx) => (await import('./run.js')).htmlToPdf(inputs, options, ctx),
});
