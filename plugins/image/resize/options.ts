import { z } from 'zod';
import { DEFAULT_QUALITY, qualityField, resizeField } from '../shared/options.js';

export const resizeOptions = z.object({ resize: resizeField, quality: qualityField(DEFAULT_QUALITY) });
export type ResizeOptions = z.output<typeof resizeOptions>;
