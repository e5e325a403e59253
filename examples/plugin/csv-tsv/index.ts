/**
 * The manifest: light (zod, the contract, the family descriptor, its options), so the API server
 * reads it without loading the run code; `run` imports ./run.js when a sandbox runs the plugin.
 */
import { definePlugin } from 'transmute/contract';
import { exampleFamily } from '../shared/family.js';
import { tsv } from '../shared/tsv.js';
import { csvTsvOptions } from './options.js';

export const csvTsvPlugin = definePlugin({
  ...exampleFamily,
  id: 'example-tsv',
  kind: 'convert',
  title: 'CSV <-> TSV',
  inputs: ['csv', tsv.id],
  outputs: ['csv', tsv.id],
  formats: [tsv],
  options: csvTsvOptions,
  plan: 'free',
  run: async (inputs, options, ctx) => (await import('./run.js')).convertTable(inputs, options, ctx),
});
