/**
 * file-search: finds a literal query in text files, PDFs, Word/OpenDocument text, Excel
 * workbooks and photos (OCR). One row per file: { kind, count, truncated, error, matches }.
 */
import { definePlugin, scaledTimeout, type PluginInput } from '../../../core/contract/index.js';
import { fileSearchRowSchema } from '../../../schema/index.js';
import { searchFamily } from '../shared/family.js';
import { SEARCH_KINDS, SEARCHABLE_FORMATS, type SearchableFormat } from '../shared/formats.js';
import { fileSearchOptions } from './options.js';

/** OCR takes seconds per megapixel; reading text is bound by disk and regex speed. */
const OCR_TIMEOUT = scaledTimeout({ baseMs: 120_000, perMbMs: 10_000 });
const TEXT_TIMEOUT = scaledTimeout({ baseMs: 60_000, perMbMs: 2_000 });
function timeoutFor(inputs: readonly PluginInput[]): number {
  const ocr = inputs.some((input) => SEARCH_KINDS[input.format as SearchableFormat] === 'image');
  return ocr ? OCR_TIMEOUT(inputs) : TEXT_TIMEOUT(inputs);
}

export const fileSearchPlugin = definePlugin({
  ...searchFamily,
  id: 'file-search',
  kind: 'extract',
  op: 'file-search',
  title: 'File search',
  inputs: SEARCHABLE_FORMATS,
  options: fileSearchOptions,
  plan: 'pro',
  // The spec's totalHits: the hits over every file.
  extraction: { maxFiles: 50, summary: { totalHits: { sum: 'count' } }, row: fileSearchRowSchema },
  limits: { ...searchFamily.limits, timeoutMs: timeoutFor },
  run: async (inputs, options, ctx) => (await import('./run.js')).fileSearch(inputs, options, ctx),
});
