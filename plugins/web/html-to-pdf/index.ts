import { definePlugin } from '../../../core/contract/index.js';
import { WEB_ENGINES, WEB_LICENSES, webLimits } from '../shared/render.js';
import { htmlToPdfOptions } from './options.js';
import { htmlToPdf } from './run.js';

export const htmlToPdfPlugin = definePlugin({
  id: 'html-to-pdf',
  kind: 'convert',
  title: 'HTML to PDF (Chromium)',
  // zip: a folder with index.html and its assets (images, fonts, CSS).
  inputs: ['html', 'zip'],
  outputs: ['pdf'],
  options: htmlToPdfOptions,
  plan: 'free',
  licenses: WEB_LICENSES,
  engines: WEB_ENGINES,
  limits: webLimits,
  run: htmlToPdf,
});
