import { z } from 'zod';

/** parse-cv takes no wire fields. */
export const parseCvOptions = z.object({});
