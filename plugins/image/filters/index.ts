/** Colour filters (grayscale, sepia, invert): same format out, alpha and animation kept. One run, three ops. */
import { definePlugin, type Plugin } from '../../../core/contract/index.js';
import { imageFamily } from '../shared/family.js';
import { EDITABLE_FORMATS } from '../shared/formats.js';
import { noOptions } from '../shared/options.js';
import type { ColourFilter } from './run.js';

function filterPlugin(op: ColourFilter, title: string): Plugin {
  return definePlugin({
    ...imageFamily,
    id: `image-${op}`,
    kind: 'tool',
    op,
    title,
    inputs: EDITABLE_FORMATS,
    options: noOptions,
    plan: 'pro',
    run: async (inputs, _options, ctx) => (await import('./run.js')).filterImage(op, inputs, ctx),
  });
}

export const filterPlugins: Plugin[] = [
  filterPlugin('grayscale', 'Grayscale image'),
  filterPlugin('sepia', 'Sepia image'),
  filterPlugin('invert', 'Invert image colours'),
];
