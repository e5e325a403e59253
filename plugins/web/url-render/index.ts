import { definePlugin } from '../../../core/contract/index.js';
import { WEB_ENGINES, webLimits } from '../shared/render.js';
import { urlRenderOptions } from './options.js';
import { urlRender } from './run.js';

export const urlRenderPlugin = definePlugin({
  id: 'url-render',
  kind: 'convert',
  title: 'Web page to PDF or image (Chromium)',
  // A .url file: Windows' [InternetShortcut], or one URL as text.
  inputs: ['url'],
  outputs: ['pdf', 'png', 'webp'],
  options: urlRenderOptions,
  plan: 'pro',
  // playwright-core (Apache-2.0); sharp (Apache-2.0) with libvips (LGPL-3.0-or-later) for WEBP.
  licenses: ['Apache-2.0', 'LGPL-3.0-or-later'],
  engines: WEB_ENGINES,
  limits: webLimits,
  run: urlRender,
});
