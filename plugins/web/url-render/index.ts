import { definePlugin } from '../../../core/contract/index.js';
import { webFamily } from '../shared/family.js';
import { urlRenderOptions } from './options.js';

export const urlRenderPlugin = definePlugin({
  ...webFamily,
  id: 'url-render',
  kind: 'convert',
  title: 'Web page to PDF or image (Chromium)',
  // A .url file: Windows' [InternetShortcut], or one URL as text.
  inputs: ['url'],
  outputs: ['pdf', 'png', 'webp'],
  options: urlRenderOptions,
  plan: 'pro',
  // sharp (Apache-2.0) with libvips (LGPL-3.0-or-later) for WEBP.
  licenses: ['Apache-2.0', 'LGPL-3.0-or-later'],
  run: async (inputs, options, ctx) => (await import('./run.js')).urlRender(inputs, options, ctx),
});
