import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  PluginError,
  singleInput,
  type FileResult,
  type PluginInput,
  type RunContext,
} from '../../../core/contract/index.js';
import { parseCsv, readTextInput, stringifyCsv } from '../shared/csv.js';

export async function repairCsv(inputs: readonly PluginInput[], ctx: RunContext): Promise<FileResult> {
  const input = singleInput(inputs);
  const { text, encoding } = await readTextInput(input, ctx.signal);
  const rows = parseCsv(text);
  if (!rows.length) throw new PluginError('The CSV has no rows');
  ctx.progress(50);
  ctx.signal.throwIfAborted();
  const width = rows.reduce((max, row) => Math.max(max, row.length), 0);
  const padded = rows.map((row) =>
    row.length < width ? [...row, ...Array<string>(width - row.length).fill('')] : row,
  );
  ctx.log.debug('repair-csv', { encoding, rows: rows.length, width });
  const output = path.join(ctx.workDir, 'output.csv');
  await writeFile(output, stringifyCsv(padded), { signal: ctx.signal });
  ctx.signal.throwIfAborted();
  ctx.progress(100);
  return { path: output, format: 'csv' };
}
