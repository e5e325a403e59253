import { z } from 'zod';

/** The wire fields, named as clients send them (REST form fields, GraphQL and tRPC arguments). */
export const csvTsvOptions = z.object({
  trimSpaces: z.boolean().default(false).describe('Remove spaces around every field'),
});
export type CsvTsvOptions = z.output<typeof csvTsvOptions>;
