/**
 * What the markdown family's image readers declare (op=structure, op=chunk, to=md|html|json on
 * PNG, JPEG, TIFF and WebP): sharp decodes the image, tesseract reads it, the PDF engine finds
 * its structure. An image page is OCRed in 2-10 s; a multi-page TIFF takes longer, so the
 * deadline grows with the bytes as a scanned PDF's does.
 */
import type { Plugin } from '../../../core/contract/index.js';
import { TESSERACT_ALL_LANGUAGES } from '../../../core/engines/tesseract.js';
import type { FormatId } from '../../../schema/index.js';
import { markdownTimeout } from './family.js';

/** The images op=structure, op=chunk and to=md|html|json read through OCR (manifests import this: no sharp here). */
export const OCR_IMAGE_INPUTS = ['png', 'jpg', 'jpeg', 'tiff', 'webp'] as const satisfies readonly FormatId[];
export type OcrImageInput = (typeof OCR_IMAGE_INPUTS)[number];

export const imageOcrFamily = {
  // What it links: pdfjs-dist (Apache-2.0) for the engine, sharp (Apache-2.0) with libvips (LGPL-3.0-or-later).
  licenses: ['Apache-2.0', 'LGPL-3.0-or-later'],
  engines: [TESSERACT_ALL_LANGUAGES],
  limits: { timeoutMs: markdownTimeout(120_000, 60_000), concurrency: 2 },
} satisfies Pick<Plugin, 'licenses' | 'engines' | 'limits'>;
