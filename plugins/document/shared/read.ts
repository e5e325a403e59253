/** Any input of the family -> the document model (run code only: loads the readers). */
import { PluginError, type PluginInput, type RunContext } from '../../../core/contract/index.js';
import type { Document } from '../../../schema/index.js';
import type { DocumentInput } from './family.js';
import { readWithPandoc } from './pandoc.js';
import { readPptx } from './pptx.js';
import { readSheets } from './sheets.js';

export async function readDocument(
  input: PluginInput,
  ctx: Pick<RunContext, 'signal' | 'remainingMs' | 'workDir'>,
  options: { images?: boolean } = {},
): Promise<Document> {
  const format = input.format as DocumentInput;
  switch (format) {
    case 'docx':
    case 'odt':
    case 'rtf':
    case 'epub':
    case 'html':
    case 'md':
      return readWithPandoc({ path: input.path, format, filename: input.filename }, ctx, {
        images: options.images ?? false,
      });
    case 'pptx':
      return readPptx(input.path, input.filename, ctx.signal);
    case 'xlsx':
    case 'ods':
    case 'csv':
      return readSheets(input.path, format, input.filename, ctx.signal);
    default:
      throw new PluginError(`${String(format).toUpperCase()} files cannot be read as a document`);
  }
}
