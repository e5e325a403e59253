/**
 * repair-csv: rewrite any CSV we can read as RFC 4180 CSV: UTF-8 without BOM, comma-delimited,
 * CRLF after every record, quotes only where needed. Every field's value is kept; blank lines
 * are dropped and short rows are padded with empty fields to the widest row.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { PluginError, definePlugin, singleInput } from '../../core/contract/index.js';
import { DATA_LIMITS, parseCsv, readTextInput, stringifyCsv } from './csv.js';

export const repairCsvPlugin = definePlugin({
  id: 'repair-csv',
  kind: 'tool',
  op: 'repair-csv',
  title: 'Repair CSV',
  inputs: ['csv'],
  options: z.object({}),
  plan: 'pro',
  // What it links: csv-parse, exceljs (MIT).
  licenses: ['MIT'],
  engines: [],
  limits: DATA_LIMITS,
  async run(inputs, _options, ctx) {
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
    ctx.progress(100);
    return { path: output, format: 'csv' };
  },
});
