import { z } from 'zod';
import { DEFAULT_QUALITY, qualityField } from '../shared/options.js';

/** The quality of photos embedded as JPEG (lossless sources and transparent images are embedded as PNG). */
export const imageToPdfOptions = z.object({ quality: qualityField(DEFAULT_QUALITY) });
export type ImageToPdfOptions = z.output<typeof imageToPdfOptions>;
