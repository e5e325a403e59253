/** Any image to a one-page PDF at the image's pixel size (1 px = 1 pt); animations give their first frame. */
import { writeFile } from 'node:fs/promises';
import { PDFDocument } from 'pdf-lib';
import {
  definePlugin,
  singleInput,
  type FileResult,
  type PluginInput,
  type RunContext,
} from '../../core/contract/index.js';
import type { FormatId } from '../../schema/index.js';
import { IMAGE_LIMITS, encode, openImage, outputPath, rethrowAsPluginError } from './engine.js';
import { IMAGE_INPUTS, IMAGE_INPUT_ENGINES } from './convert.js';
import { convertOptions } from './options.js';

/** Sources whose pixels are exact: embedding them as JPEG would blur text and edges. */
const LOSSLESS_SOURCES: ReadonlySet<FormatId> = new Set(['png', 'gif', 'tiff', 'svg']);

async function imageToPdf(input: PluginInput, quality: number, ctx: RunContext): Promise<FileResult> {
  const { image, header } = await openImage(input, ctx, { animated: false });
  // PDF has no JPEG with alpha: transparent images are embedded as PNG, like lossless sources.
  const asPng = header.hasAlpha || LOSSLESS_SOURCES.has(input.format);
  const { data, info } = await encode(image, asPng ? 'png' : 'jpg', { quality })
    .toBuffer({ resolveWithObject: true })
    .catch(rethrowAsPluginError);
  ctx.signal.throwIfAborted();
  ctx.progress(60);

  const pdf = await PDFDocument.create({ updateMetadata: false });
  const embedded = asPng ? await pdf.embedPng(data) : await pdf.embedJpg(data);
  pdf.addPage([info.width, info.height]).drawImage(embedded, { x: 0, y: 0, width: info.width, height: info.height });
  const output = outputPath(ctx, 'pdf');
  await writeFile(output, await pdf.save(), { signal: ctx.signal });
  ctx.signal.throwIfAborted();
  ctx.progress(100);
  return { path: output, format: 'pdf' };
}

export const imageToPdfPlugin = definePlugin({
  id: 'image-to-pdf',
  kind: 'convert',
  title: 'Image to PDF',
  inputs: IMAGE_INPUTS,
  outputs: ['pdf'],
  options: convertOptions,
  plan: 'free',
  // What it links: sharp (Apache-2.0) with libvips (LGPL-3.0-or-later), pdf-lib (MIT), heic-decode (ISC) with libheif (LGPL-3.0).
  licenses: ['Apache-2.0', 'LGPL-3.0-or-later', 'MIT', 'ISC'],
  engines: IMAGE_INPUT_ENGINES,
  limits: IMAGE_LIMITS,
  run: (inputs, { quality }, ctx) => imageToPdf(singleInput(inputs), quality, ctx),
});
