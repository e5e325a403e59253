import { z } from 'zod';

/** clean-metadata takes no wire fields. */
export const cleanMetadataOptions = z.object({});
