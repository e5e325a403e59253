import { z } from 'zod';

export const DEFAULT_QUALITY = 60;

export const compressVideoOptions = z.object({
  quality: z
    .number()
    .int('quality must be a whole number')
    .min(10, 'quality must be between 10 and 95')
    .max(95, 'quality must be between 10 and 95')
    .default(DEFAULT_QUALITY)
    .describe(
      '10 to 95, lower gives a smaller file; mapped linearly to CRF: H.264 95 -> 18, 60 -> 27, 10 -> 40; VP9 95 -> ' +
        '20, 60 -> 32, 10 -> 50',
    ),
});

/**
 * quality -> CRF, linear: quality 95 is near transparent (x264 CRF 18, VP9 CRF 20) and quality 10
 * is the smallest still-watchable file (x264 CRF 40, VP9 CRF 50). VP9's CRF scale runs higher.
 */
const crfFor = (quality: number, best: number, worst: number) =>
  Math.round(best + ((95 - quality) * (worst - best)) / 85);
export const h264Crf = (quality: number) => crfFor(quality, 18, 40);
export const vp9Crf = (quality: number) => crfFor(quality, 20, 50);
