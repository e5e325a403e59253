/** resize: fit an image into a box (cover, contain, inside, fill), same format, animation kept. */
import { definePlugin } from '../../../core/contract/index.js';
import { imageFamily } from '../shared/family.js';
import { EDITABLE_FORMATS } from '../shared/formats.js';
import { resizeOptions } from './options.js';

export const resizePlugin = definePlugin({
  ...imageFamily,
  id: 'image-resize',
  kind: 'tool',
  op: 'resize',
  title: 'Resize image',
  inputs: EDITABLE_FORMATS,
  options: resizeOptions,
  plan: 'pro',
  run: async (inputs, options, ctx) => (await import('./run.js')).resizeImage(inputs, options, ctx),
});
