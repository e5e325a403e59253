/** The data family's descriptor: what every data manifest links, and its default limits. */
import { scaledTimeout, type Plugin } from '../../../core/contract/index.js';

export const dataFamily = {
  // What it links: csv-parse, exceljs (MIT).
  licenses: ['MIT'],
  engines: [],
  limits: {
    // Parsing is linear; a minute plus a second per MB is generous.
    timeoutMs: scaledTimeout({ baseMs: 60_000, perMbMs: 1_000 }),
    concurrency: 2,
  },
} satisfies Pick<Plugin, 'licenses' | 'engines' | 'limits'>;
