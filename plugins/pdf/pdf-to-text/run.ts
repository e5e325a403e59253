import { createReadStream } from 'node:fs';
import path from 'node:path';
import {
  PluginError,
  singleInput,
  type FileResult,
  type PluginInput,
  type RunContext,
} from '../../../core/contract/index.js';
import { pdfTextToFile } from '../../../core/engines/poppler.js';
import { openPdf } from '../../../core/engines/qpdf.js';
import { outputDir } from '../shared/output.js';

/** Whether the file holds anything but white space and form feeds (read until the first such character). */
async function hasVisibleText(file: string): Promise<boolean> {
  for await (const chunk of createReadStream(file, { encoding: 'utf8' })) {
    if (/\S/.test((chunk as string).replaceAll('\f', ''))) return true;
  }
  return false;
}

export async function pdfToText(inputs: readonly PluginInput[], ctx: RunContext): Promise<FileResult> {
  ctx.signal.throwIfAborted();
  const input = singleInput(inputs);
  await openPdf(input.path, ctx);
  ctx.progress(10);
  const output = path.join(await outputDir(ctx), 'text.txt');
  await pdfTextToFile(input.path, output, ctx);
  if (!(await hasVisibleText(output))) {
    throw new PluginError('The PDF has no text layer (it may be scanned): run op ocr on it first');
  }
  ctx.signal.throwIfAborted();
  ctx.progress(100);
  return { path: output, format: 'txt' };
}
