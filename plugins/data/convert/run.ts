import path from 'node:path';
import { singleInput, type FileResult, type PluginInput, type RunContext } from '../../../core/contract/index.js';
import type { FormatId } from '../../../schema/index.js';
import { readTable, writeCsv, writeJson, writeXlsx } from '../shared/table.js';

const WRITERS = { csv: writeCsv, json: writeJson, xlsx: writeXlsx } as const;
type TableFormat = keyof typeof WRITERS;

export async function convertTable(inputs: readonly PluginInput[], ctx: RunContext): Promise<FileResult> {
  const input = singleInput(inputs);
  const to: FormatId = ctx.target;
  if (!(to in WRITERS)) throw new Error(`data-convert cannot write ${to}`);
  ctx.signal.throwIfAborted();
  const table = await readTable(input, ctx.signal);
  ctx.progress(50);
  ctx.signal.throwIfAborted();
  const output = path.join(ctx.workDir, `output.${to}`);
  await WRITERS[to as TableFormat](table, output, ctx.signal);
  ctx.signal.throwIfAborted();
  ctx.progress(100);
  return { path: output, format: to };
}
