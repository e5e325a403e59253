import type { FileResult, PluginInput, RunContext } from '../../../core/contract/index.js';
import { deleteKeys, rewriteObjects, type PdfObjects } from '../shared/object-edit.js';
import { transformPdf } from '../shared/transform.js';

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

export function repairPdf(inputs: readonly PluginInput[], ctx: RunContext): Promise<FileResult> {
  return transformPdf(inputs, ctx, ({ output, input }) =>
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
  );
}
