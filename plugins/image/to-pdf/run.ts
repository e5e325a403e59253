import { writeFile } from 'node:fs/promises';
import { PDFDocument } from 'pdf-lib';
import { singleInput, type FileResult, type PluginInput, type RunContext } from '../../../core/contract/index.js';
import type { FormatId } from '../../../schema/index.js';
import { encode, openImage, outputPath, rethrowAsPluginError } from '../shared/engine.js';
import type { ImageToPdfOptions } from './options.js';

/** Sources whose pixels are exact: embedding them as JPEG would blur text and edges. */
const LOSSLESS_SOURCES: ReadonlySet<FormatId> = new Set(['png', 'gif', 'tiff', 'svg']);

export async function imageToPdf(
  inputs: readonly PluginInput[],
  { quality }: ImageToPdfOptions,
  ctx: RunContext,
): Promise<FileResult> {
  const input = singleInput(inputs);
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
