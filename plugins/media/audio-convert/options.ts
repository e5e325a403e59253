import { z } from 'zod';

/** No wire field applies to audio conversion: each target has one encoder setting (shared/encoders.ts). */
export const audioConvertOptions = z.object({});
