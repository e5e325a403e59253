import { definePlugin } from '../../../core/contract/index.js';
import { pdfPageOptions } from '../shared/options.js';
import { WEB_ENGINES, WEB_LICENSES, webLimits } from '../shared/render.js';
import { mdToPdf } from './run.js';

export const mdToPdfPlugin = definePlugin({
  id: 'md-to-pdf',
  kind: 'convert',
  title: 'Markdown to PDF (Chromium)',
  inputs: ['md'],
  outputs: ['pdf'],
  options: pdfPageOptions,
  plan: 'free',
  // micromark and its GFM extension (MIT); playwright-core (Apache-2.0).
  licenses: [...WEB_LICENSES, 'MIT'],
  engines: WEB_ENGINES,
  limits: webLimits,
  run: mdToPdf,
});
