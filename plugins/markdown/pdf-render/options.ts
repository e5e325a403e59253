import { z } from 'zod';
import { markdownOptions } from '../shared/options.js';

/** PDF -> md / html / json: the engine's options (running lines, OCR languages). */
export const pdfRenderOptions = z.object({
  keepRunning: markdownOptions.shape.keepRunning,
  lang: markdownOptions.shape.lang,
});
