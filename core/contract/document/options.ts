/**
 * The options of op=structure and op=chunk, shared by every reader family (PDF, office, slides,
 * sheets) so the same field means the same thing whatever the input.
 */
import { z } from 'zod';
import { TOKENIZER_IDS } from './tokenizers.js';

/**
 * op=structure takes no options of its own yet (a PDF's adds the engine's). Figures carry their
 * caption and alt text; embedding the image itself is not offered yet.
 */
export const structureOptions = z.object({});

export const chunkOptions = z.object({
  maxTokens: z
    .number()
    .int()
    .min(16)
    .max(8192)
    .default(512)
    .describe("The most tokens a chunk's text may hold, heading path included. Default 512."),
  overlap: z
    .number()
    .int()
    .min(0)
    .max(1024)
    .default(0)
    .describe(
      "Tokens of a chunk's end repeated at the start of the next one under the same headings (at most a quarter" +
        ' of maxTokens). Default 0.',
    ),
  tokenizer: z
    .enum(TOKENIZER_IDS)
    .default('cl100k')
    .describe(
      'What a token is: cl100k (the BPE of OpenAI embedding models, through js-tiktoken) or words' +
        ' (whitespace-separated). Default cl100k.',
    ),
  mergePeers: z
    .boolean()
    .default(true)
    .describe('Merge small neighbouring nodes under the same headings into one chunk. Default true.'),
});
export type ChunkOptionValues = z.output<typeof chunkOptions>;
