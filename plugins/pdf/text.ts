/**
 * pdf-to-text: the embedded text layer as UTF-8 plain text in reading order (pdftotext without
 * -layout: columns come out one after another instead of side by side), pages separated by a
 * form feed (\f), Unix line ends.
 */
import { createReadStream } from 'node:fs';
import path from 'node:path';
import { PluginError, definePlugin, singleInput } from '../../core/contract/index.js';
import { PDFTOTEXT, pdfTextToFile } from '../../core/engines/poppler.js';
import { QPDF, openPdf } from '../../core/engines/qpdf.js';
import { noOptions } from './options.js';
import { outputDir, pdfLimits } from './shared/run.js';

/** Whether the file holds anything but white space and form feeds (read until the first such character). */
async function hasVisibleText(file: string): Promise<boolean> {
  for await (const chunk of createReadStream(file, { encoding: 'utf8' })) {
    if (/\S/.test((chunk as string).replaceAll('\f', ''))) return true;
  }
  return false;
}

export const pdfToTextPlugin = definePlugin({
  id: 'pdf-to-text',
  kind: 'tool',
  op: 'pdf-to-text',
  title: 'PDF to text',
  inputs: ['pdf'],
  outputs: ['txt'],
  options: noOptions,
  plan: 'pro',
  // What it links: pdf-lib and yazl (MIT), sharp (Apache-2.0) with libvips (LGPL-3.0-or-later); engines declare their own.
  licenses: ['MIT', 'Apache-2.0', 'LGPL-3.0-or-later'],
  engines: [QPDF, PDFTOTEXT],
  limits: pdfLimits(2),
  async run(inputs, _options, ctx) {
    ctx.signal.throwIfAborted();
    const input = singleInput(inputs);
    await openPdf(input.path, ctx);
    ctx.progress(10);
    const output = path.join(await outputDir(ctx), 'text.txt');
    await pdfTextToFile(input.path, output, ctx);
    if (!(await hasVisibleText(output))) {
      throw new PluginError('The PDF has no text layer (it may be scanned): run op ocr on it first');
    }
    ctx.progress(100);
    return { path: output, format: 'txt' };
  },
});
