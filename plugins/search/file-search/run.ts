import {
  PluginError,
  singleInput,
  type JsonResult,
  type PluginInput,
  type RunContext,
} from '../../../core/contract/index.js';
import { SEARCH_KINDS, type SearchableFormat } from '../shared/formats.js';
import { MatchCollector } from '../shared/match.js';
import { READERS } from '../shared/readers.js';
import type { FileSearchOptions } from './options.js';

export async function fileSearch(
  inputs: readonly PluginInput[],
  options: FileSearchOptions,
  ctx: RunContext,
): Promise<JsonResult> {
  ctx.signal.throwIfAborted();
  const input = singleInput(inputs);
  const format = input.format as SearchableFormat;
  const read = READERS[format];
  if (!read) throw new PluginError(`file-search does not read ${input.format} files`);
  const collector = new MatchCollector(options);
  let error: string | null = null;
  try {
    await read(input, collector, ctx);
  } catch (err) {
    // The spec's row for a file that was not searched: count 0 and the reason.
    if (!(err instanceof PluginError) || ctx.signal.aborted) throw err;
    error = err.message;
  }
  // A reader may finish its last read after the abort (file reads do not watch the signal).
  ctx.signal.throwIfAborted();
  ctx.progress(100);
  return {
    row: {
      kind: SEARCH_KINDS[format],
      count: error === null ? collector.count : 0,
      truncated: error === null && collector.truncated,
      error,
      matches: error === null ? collector.matches : [],
    },
  };
}
