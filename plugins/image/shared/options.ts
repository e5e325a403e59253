/** Option fields the image plugins share (each plugin's options.ts), named exactly as the wire contract names them. */
import { z } from 'zod';

/** Quality used when a conversion or resize does not ask for one. */
export const DEFAULT_QUALITY = 80;
/** compress without `quality`: visibly close to the original, clearly smaller. */
export const DEFAULT_COMPRESS_QUALITY = 75;
/** Ops that have no quality field (filters, clean-metadata) re-encode lossy formats at this. */
export const PRESERVING_QUALITY = 90;

export const qualityField = (defaultValue: number) =>
  z
    .number()
    .int('must be an integer from 10 to 95')
    .min(10, 'must be an integer from 10 to 95')
    .max(95, 'must be an integer from 10 to 95')
    .default(defaultValue)
    .describe(`Encoder quality for lossy formats (jpg, webp, avif), 10-95; lower is smaller. Default ${defaultValue}.`);

const FIT_MODES = ['cover', 'contain', 'inside', 'fill'] as const;
/** The spec gives no default fit; `inside` never crops and never distorts. */
const DEFAULT_FIT: (typeof FIT_MODES)[number] = 'inside';

const dimension = z
  .number()
  .int('must be an integer from 1 to 10000')
  .min(1, 'must be an integer from 1 to 10000')
  .max(10_000, 'must be an integer from 1 to 10000');

export const resizeField = z
  .strictObject({
    width: dimension.optional(),
    height: dimension.optional(),
    fit: z.enum(FIT_MODES, { error: `must be one of ${FIT_MODES.join(', ')}` }).default(DEFAULT_FIT),
  })
  .refine((box) => box.width !== undefined || box.height !== undefined, { error: 'width or height is required' })
  .describe(
    `Target box {width, height, fit}: width and height 1-10000 px, at least one; fit cover (crop to fill), contain ` +
      `(pad), ` +
      `inside (fit within, the default) or fill (stretch).`,
  );

/** The options of the plugins that take none (filters, clean-metadata, ICO, blur-faces, remove-bg). */
export const noOptions = z.object({});
