import { z } from 'zod';

/** normalize-audio takes no wire fields: the target is fixed by the spec (-16 LUFS). */
export const normalizeAudioOptions = z.object({});
