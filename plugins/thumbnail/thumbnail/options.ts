/** op=thumbnail: the box, how the picture fits it, and which page or moment to show. */
import { z } from 'zod';

export const FIT_MODES = ['cover', 'contain', 'inside', 'fill'] as const;
const MAX_SIDE = 4096;
const side = z
  .number()
  .int(`must be an integer from 1 to ${MAX_SIDE}`)
  .min(1, `must be an integer from 1 to ${MAX_SIDE}`)
  .max(MAX_SIDE, `must be an integer from 1 to ${MAX_SIDE}`);

/** Width when neither side is given: a common thumbnail size. */
export const DEFAULT_WIDTH = 256;

export const thumbnailOptions = z.object({
  width: side
    .optional()
    .describe(`Thumbnail width in px (1-${MAX_SIDE}); default ${DEFAULT_WIDTH} when height is not given either.`),
  height: side
    .optional()
    .describe(`Thumbnail height in px (1-${MAX_SIDE}); with width only, the height follows the aspect ratio.`),
  fit: z
    .enum(FIT_MODES, { error: `must be one of ${FIT_MODES.join(', ')}` })
    .default('inside')
    .describe(
      'How the picture fits width x height: inside (default, never crops or distorts), cover (crop to fill), contain ' +
        '(pad), fill (stretch).',
    ),
  page: z
    .number()
    .int('must be a whole page number')
    .min(1, 'must be 1 or more')
    .default(1)
    .describe('PDF: the page to show (default 1).'),
  time: z
    .number()
    .min(0, 'must be 0 or more')
    .optional()
    .describe('Video: the moment to show, in seconds (default: 10% of the duration).'),
  quality: z.number().int().min(1).max(100).default(85).describe('WEBP and JPG quality, 1-100 (default 85).'),
});
export type ThumbnailOptions = z.output<typeof thumbnailOptions>;
