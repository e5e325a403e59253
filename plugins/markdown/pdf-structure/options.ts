import { z } from 'zod';
import { structureOptions } from '../../../core/contract/document/options.js';
import { markdownOptions } from '../shared/options.js';

/** op=structure on a PDF: the model's options, and the engine's (running lines kept or not, OCR languages). */
export const pdfStructureOptions = z.object({
  ...structureOptions.shape,
  keepRunning: markdownOptions.shape.keepRunning,
  lang: markdownOptions.shape.lang,
});
