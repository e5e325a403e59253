import { z } from 'zod';
import { DEFAULT_QUALITY, qualityField } from '../shared/options.js';

export const convertOptions = z.object({ quality: qualityField(DEFAULT_QUALITY) });
export type ConvertOptions = z.output<typeof convertOptions>;
