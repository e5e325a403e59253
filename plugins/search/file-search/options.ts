import { z } from 'zod';

export const fileSearchOptions = z.object({
  query: z.string().min(1).max(1000).describe('The text to find, matched literally (never a regex).'),
  wholeWord: z.boolean().default(false).describe('Match whole words only.'),
  caseSensitive: z.boolean().default(false).describe('Match case.'),
});

export type FileSearchOptions = z.output<typeof fileSearchOptions>;
