import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  PluginError,
  singleInput,
  type FileResult,
  type PluginInput,
  type RunContext,
} from '../../../core/contract/index.js';
import { MB, megabytes } from '../../../schema/index.js';
import { decodeText } from '../shared/csv.js';
import { parseSrt, parseVtt, writeSrt, writeVtt } from './subtitles.js';

/** Largest subtitle file read. */
const MAX_SUBTITLE_BYTES = 20 * MB;

export async function convertSubtitles(inputs: readonly PluginInput[], ctx: RunContext): Promise<FileResult> {
  const input = singleInput(inputs);
  ctx.signal.throwIfAborted();
  if (input.bytes > MAX_SUBTITLE_BYTES)
    throw new PluginError(`Subtitle file is too large (limit ${megabytes(MAX_SUBTITLE_BYTES)} MB)`);
  const { text } = decodeText(await readFile(input.path, { signal: ctx.signal }));
  const cues = input.format === 'vtt' ? parseVtt(text) : parseSrt(text);
  if (!cues.length) throw new PluginError('The subtitle file has no cues');
  const output = path.join(ctx.workDir, `output.${ctx.target}`);
  await writeFile(output, ctx.target === 'srt' ? writeSrt(cues) : writeVtt(cues), { signal: ctx.signal });
  ctx.signal.throwIfAborted();
  ctx.progress(100);
  return { path: output, format: ctx.target };
}
