/**
 * repair-csv: rewrite any CSV we can read as RFC 4180 CSV: UTF-8 without BOM, comma-delimited,
 * CRLF after every record, quotes only where needed. Every field's value is kept; blank lines
 * are dropped and short rows are padded with empty fields to the widest row.
 */
import { z } from 'zod';
import { definePlugin } from '../../../core/contract/index.js';
import { dataFamily } from '../shared/family.js';

export const repairCsvPlugin = definePlugin({
  ...dataFamily,
  id: 'repair-csv',
  kind: 'tool',
  op: 'repair-csv',
  title: 'Repair CSV',
  inputs: ['csv'],
  options: z.object({}),
  plan: 'pro',
  run: async (inputs, _options, ctx) => (await import('./run.js')).repairCsv(inputs, ctx),
});
