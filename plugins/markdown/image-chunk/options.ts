import { z } from 'zod';
import { chunkOptions } from '../../../core/contract/document/options.js';
import { markdownOptions } from '../shared/options.js';

/** op=chunk on an image: the chunker's options, and the OCR languages. */
export const imageChunkOptions = z.object({ ...chunkOptions.shape, lang: markdownOptions.shape.lang });
