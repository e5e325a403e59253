import { z } from 'zod';

const QUALITY_RULE = 'must be an integer from 10 to 95';

export const compressPdfOptions = z.object({
  // The spec's `quality` field, 10-95 as for every op that takes it (compress, compress-video).
  quality: z
    .number()
    .int(QUALITY_RULE)
    .min(10, QUALITY_RULE)
    .max(95, QUALITY_RULE)
    .optional()
    .describe(
      'Image quality, 10-95; lower is smaller: images are downsampled (72 dpi at 10, 300 dpi at 95) and ' +
        're-encoded as JPEG at that quality. Text and vector graphics are never degraded. ' +
        'Omitted: 150 dpi at medium JPEG quality.',
    ),
});
