import type { FileResult, PluginInput, RunContext } from '../../../core/contract/index.js';
import { deleteKeys, rewriteObjects } from '../shared/object-edit.js';
import { transformPdf } from '../shared/transform.js';

export function cleanPdfMetadata(inputs: readonly PluginInput[], ctx: RunContext): Promise<FileResult> {
  return transformPdf(inputs, ctx, ({ input, output }) =>
    rewriteObjects(input.path, output, ctx, (objects) => {
      objects.editTrailer((trailer) => deleteKeys(trailer, ['/Info']));
      objects.editDictionaries((dictionary) => deleteKeys(dictionary, ['/Metadata', '/PieceInfo']));
    }),
  );
}
