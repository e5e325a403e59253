/**
 * repair-office (DOCX, XLSX, PPTX; same format out; best effort), in three steps:
 * 1. The ZIP is rebuilt from its local file headers (package.ts): a broken or missing central
 *    directory, a truncated tail and wrong CRCs do not matter; data is re-compressed with new CRCs.
 * 2. The package is made consistent: XML parts that do not parse are dropped (an XML part cut
 *    short by truncation is completed instead, so its text up to the cut survives);
 *    `[Content_Types].xml` is rebuilt (defaults by extension, an override for each known part that
 *    exists); relationships whose target part is missing are removed, and the package and main
 *    part relationships are recreated when they were lost; sheets and slides whose part is gone
 *    leave the workbook and presentation lists.
 * 3. LibreOffice opens the rebuilt package (a conversion to the same format, as a check): when it
 *    opens, the rebuilt package is the result (our repair keeps the original's XML as it was);
 *    when it does not, LibreOffice's own round trip of the original file is the last resort.
 * A file where nothing can be recovered, or that neither opens, fails with a PluginError.
 */
import { z } from 'zod';
import { definePlugin, scaledTimeout } from '../../../core/contract/index.js';
import { officeFamily } from '../shared/family.js';

export const repairOfficePlugin = definePlugin({
  ...officeFamily,
  id: 'repair-office',
  kind: 'tool',
  op: 'repair-office',
  title: 'Repair a DOCX, XLSX or PPTX',
  inputs: ['docx', 'xlsx', 'pptx'],
  options: z.object({}),
  plan: 'pro',
  // What it links: fflate (MIT); LibreOffice is declared by its engine.
  licenses: ['MIT'],
  // Up to two LibreOffice starts (the check, then the round trip of the original). No page count:
  // a damaged package's docProps cannot be trusted to be there, and the repair reads every part anyway.
  limits: { timeoutMs: scaledTimeout({ baseMs: 45_000, perMbMs: 20_000, maxMs: 30 * 60_000 }), concurrency: 2 },
  run: async (inputs, _options, ctx) => (await import('./run.js')).repairOffice(inputs, ctx),
});
