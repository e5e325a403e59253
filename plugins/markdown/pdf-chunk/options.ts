import { z } from 'zod';
import { chunkOptions } from '../../../core/contract/document/options.js';
import { markdownOptions } from '../shared/options.js';

/** op=chunk on a PDF: the chunker's options, and the engine's OCR languages for scanned pages. */
export const pdfChunkOptions = z.object({ ...chunkOptions.shape, lang: markdownOptions.shape.lang });
