/** parse-cv: one row of contact, role, skills and experience fields per CV, with a confidence per field. */
import { definePlugin } from '../../../core/contract/index.js';
import { parseCvRowSchema } from '../../../schema/index.js';
import { cvFamily } from '../shared/family.js';
import { parseCvOptions } from './options.js';

export const parseCvPlugin = definePlugin({
  ...cvFamily,
  id: 'parse-cv',
  kind: 'extract',
  op: 'parse-cv',
  title: 'CV parsing',
  inputs: ['pdf', 'docx', 'doc'],
  options: parseCvOptions,
  plan: 'pro',
  extraction: { maxFiles: 50, row: parseCvRowSchema },
  run: async (inputs, options, ctx) => (await import('./run.js')).parseCvRun(inputs, options, ctx),
});
