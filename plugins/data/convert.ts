/**
 * data-convert: CSV, JSON and XLSX into one another, through the table model (table.ts). The
 * output format is ctx.target.
 */
import path from 'node:path';
import { z } from 'zod';
import { definePlugin, singleInput } from '../../core/contract/index.js';
import type { FormatId } from '../../schema/index.js';
import { DATA_LIMITS } from './csv.js';
import { readTable, writeCsv, writeJson, writeXlsx } from './table.js';

const WRITERS = { csv: writeCsv, json: writeJson, xlsx: writeXlsx } as const;
type TableFormat = keyof typeof WRITERS;

export const dataConvertPlugin = definePlugin({
  id: 'data-convert',
  kind: 'convert',
  title: 'Data conversion (CSV, JSON, XLSX)',
  inputs: ['csv', 'json', 'xlsx'],
  outputs: ['json', 'csv', 'xlsx'],
  options: z.object({}),
  plan: 'free',
  // What it links: csv-parse, exceljs (MIT).
  licenses: ['MIT'],
  engines: [],
  limits: DATA_LIMITS,
  async run(inputs, _options, ctx) {
    const input = singleInput(inputs);
    const to: FormatId = ctx.target;
    if (!(to in WRITERS)) throw new Error(`data-convert cannot write ${to}`);
    ctx.signal.throwIfAborted();
    const table = await readTable(input, ctx.signal);
    ctx.progress(50);
    ctx.signal.throwIfAborted();
    const output = path.join(ctx.workDir, `output.${to}`);
    await WRITERS[to as TableFormat](table, output, ctx.signal);
    ctx.progress(100);
    return { path: output, format: to };
  },
});
