/**
 * repair-pdf, best effort: qpdf reads what it can of a damaged file (rebuilding a broken
 * cross-reference table, skipping unreadable objects) and writes a complete, consistent new
 * file with fresh object streams. On the way, scripts that run without a click are removed:
 * - /OpenAction when it is an action (JavaScript, Launch, ...); a plain "open at page N"
 *   destination is kept,
 * - every /AA (additional actions: on page open/close, on field focus, before print or save...),
 * - the document-level JavaScript name tree (/Names /JavaScript), run when the file opens.
 * Link actions the reader has to click are left alone. A file qpdf cannot read at all is refused.
 */
import { definePlugin } from '../../core/contract/index.js';
import { QPDF } from '../../core/engines/qpdf.js';
import { noOptions } from './options.js';
import { deleteKeys, rewriteObjects, type PdfObjects } from './shared/object-edit.js';
import { pdfLimits } from './shared/run.js';
import { transformPdf } from './shared/transform.js';

/** Remove auto-run actions; returns how many entries were removed. */
function stripAutoRunActions(objects: PdfObjects): number {
  let removed = 0;
  objects.editDictionaries((dictionary) => {
    let changed = deleteKeys(dictionary, ['/AA', '/JavaScript']);
    const openAction = dictionary['/OpenAction'];
    if (openAction !== undefined && !Array.isArray(objects.resolve(openAction))) {
      delete dictionary['/OpenAction'];
      changed = true;
    }
    if (changed) removed++;
    return changed;
  });
  return removed;
}

export const repairPdfPlugin = definePlugin({
  id: 'repair-pdf',
  kind: 'tool',
  op: 'repair-pdf',
  title: 'Repair a PDF',
  inputs: ['pdf'],
  options: noOptions,
  plan: 'pro',
  // What it links: pdf-lib and yazl (MIT), sharp (Apache-2.0) with libvips (LGPL-3.0-or-later); engines declare their own.
  licenses: ['MIT', 'Apache-2.0', 'LGPL-3.0-or-later'],
  engines: [QPDF],
  limits: pdfLimits(2),
  run: (inputs, _options, ctx) =>
    transformPdf(inputs, ctx, ({ output, input }) =>
      rewriteObjects(
        input.path,
        output,
        ctx,
        (objects) => {
          const removed = stripAutoRunActions(objects);
          if (removed) ctx.log.info('repair-pdf removed auto-run actions', { dictionaries: removed });
        },
        { objectStreams: 'generate' },
      ),
    ),
});
