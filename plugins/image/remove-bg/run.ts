/** remove-bg's run: the matte from @imgly/background-removal-node, scaled back with sharp as the alpha channel. */
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import sharp from 'sharp';
import { singleInput, type FileResult, type PluginInput, type RunContext } from '../../../core/contract/index.js';
import { openImage, rethrowAsPluginError, writePngOutput } from '../shared/engine.js';

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

export async function removeBackground(inputs: readonly PluginInput[], ctx: RunContext): Promise<FileResult> {
  const input = singleInput(inputs);
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
