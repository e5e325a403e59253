import { z } from 'zod';

/** No wire field applies to video conversion: targets use the settings in shared/encoders.ts. */
export const videoConvertOptions = z.object({});
