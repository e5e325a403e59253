/**
 * Any image to a Windows icon holding the usual sizes up to the image's own (16-256 px, square,
 * padded with transparency). Entries are PNG-compressed, which every Windows since Vista and
 * every browser reads.
 */
import { definePlugin } from '../../../core/contract/index.js';
import { imageFamily } from '../shared/family.js';
import { IMAGE_INPUTS, IMAGE_INPUT_ENGINES } from '../shared/formats.js';
import { noOptions } from '../shared/options.js';

export const imageToIcoPlugin = definePlugin({
  ...imageFamily,
  id: 'image-to-ico',
  kind: 'convert',
  title: 'Image to ICO',
  inputs: IMAGE_INPUTS,
  outputs: ['ico'],
  options: noOptions,
  plan: 'free',
  engines: IMAGE_INPUT_ENGINES,
  run: async (inputs, _options, ctx) => (await import('./run.js')).imageToIco(inputs, ctx),
});
