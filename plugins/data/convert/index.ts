/**
 * data-convert: CSV, JSON and XLSX into one another, through the table model (shared/table.ts).
 * The output format is ctx.target.
 */
import { z } from 'zod';
import { definePlugin } from '../../../core/contract/index.js';
import { dataFamily } from '../shared/family.js';

export const dataConvertPlugin = definePlugin({
  ...dataFamily,
  id: 'data-convert',
  kind: 'convert',
  title: 'Data conversion (CSV, JSON, XLSX)',
  inputs: ['csv', 'json', 'xlsx'],
  outputs: ['json', 'csv', 'xlsx'],
  options: z.object({}),
  plan: 'free',
  run: async (inputs, _options, ctx) => (await import('./run.js')).convertTable(inputs, ctx),
});
