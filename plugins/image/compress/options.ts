import { z } from 'zod';
import { DEFAULT_COMPRESS_QUALITY, qualityField } from '../shared/options.js';

export const compressOptions = z.object({ quality: qualityField(DEFAULT_COMPRESS_QUALITY) });
export type CompressOptions = z.output<typeof compressOptions>;
