/**
 * file-search: finds a literal query in text files, PDFs, Word/OpenDocument text, Excel
 * workbooks and photos (OCR). One row per file: { kind, count, truncated, error, matches }.
 */
import { z } from 'zod';
import { PluginError, definePlugin, scaledTimeout, singleInput, type PluginInput } from '../../core/contract/index.js';
import { PDFTOTEXT } from '../../core/engines/poppler.js';
import { TESSERACT } from '../../core/engines/tesseract.js';
import { MatchCollector } from './match.js';
import { FAMILIES, type SearchableFormat } from './readers.js';

export const fileSearchOptions = z.object({
  query: z.string().min(1).max(1000).describe('The text to find, matched literally (never a regex).'),
  wholeWord: z.boolean().default(false).describe('Match whole words only.'),
  caseSensitive: z.boolean().default(false).describe('Match case.'),
});

const SEARCHABLE_FORMATS = Object.keys(FAMILIES) as SearchableFormat[];

/** OCR takes seconds per megapixel; reading text is bound by disk and regex speed. */
const OCR_TIMEOUT = scaledTimeout({ baseMs: 120_000, perMbMs: 10_000 });
const TEXT_TIMEOUT = scaledTimeout({ baseMs: 60_000, perMbMs: 2_000 });
function timeoutFor(inputs: readonly PluginInput[]): number {
  const ocr = inputs.some((input) => FAMILIES[input.format as SearchableFormat]?.kind === 'image');
  return ocr ? OCR_TIMEOUT(inputs) : TEXT_TIMEOUT(inputs);
}

export const fileSearchPlugin = definePlugin({
  id: 'file-search',
  kind: 'extract',
  op: 'file-search',
  title: 'File search',
  inputs: SEARCHABLE_FORMATS,
  options: fileSearchOptions,
  plan: 'pro',
  // What it links: exceljs, pdf-lib, yauzl, yazl (MIT), sharp (Apache-2.0) with libvips (LGPL-3.0-or-later); engines declare their own.
  licenses: ['MIT', 'Apache-2.0', 'LGPL-3.0-or-later'],
  // The spec's totalHits: the hits over every file.
  extraction: { maxFiles: 50, summary: { totalHits: { sum: 'count' } } },
  engines: [PDFTOTEXT, TESSERACT],
  limits: { timeoutMs: timeoutFor, concurrency: 2 },
  async run(inputs, options, ctx) {
    ctx.signal.throwIfAborted();
    const input = singleInput(inputs);
    const family = FAMILIES[input.format as SearchableFormat];
    if (!family) throw new PluginError(`file-search does not read ${input.format} files`);
    const collector = new MatchCollector(options);
    let error: string | null = null;
    try {
      await family.read(input, collector, ctx);
    } catch (err) {
      // The spec's row for a file that was not searched: count 0 and the reason.
      if (!(err instanceof PluginError) || ctx.signal.aborted) throw err;
      error = err.message;
    }
    ctx.progress(100);
    return {
      row: {
        kind: family.kind,
        count: error === null ? collector.count : 0,
        truncated: error === null && collector.truncated,
        error,
        matches: error === null ? collector.matches : [],
      },
    };
  },
});
