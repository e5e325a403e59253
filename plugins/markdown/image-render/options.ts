import { z } from 'zod';
import { markdownOptions } from '../shared/options.js';

/** Image -> md / html / json: the OCR languages. */
export const imageRenderOptions = z.object({ lang: markdownOptions.shape.lang });
