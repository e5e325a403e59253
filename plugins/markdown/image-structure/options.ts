import { z } from 'zod';
import { structureOptions } from '../../../core/contract/document/options.js';
import { markdownOptions } from '../shared/options.js';

/** op=structure on an image: the model's options, and the OCR languages. */
export const imageStructureOptions = z.object({ ...structureOptions.shape, lang: markdownOptions.shape.lang });
