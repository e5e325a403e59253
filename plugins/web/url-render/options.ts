import { z } from 'zod';
import { pdfPageOptions } from '../shared/options.js';

const VIEWPORT_RULE = 'JSON {"width": 320-3840, "height": 240-2160}';
const viewportSide = (min: number, max: number) =>
  z
    .number()
    .int(`must be an integer from ${min} to ${max}`)
    .min(min, `must be at least ${min}`)
    .max(max, `must be at most ${max}`);

/** The page options, plus the browser window for screenshots (and for the layout the PDF is printed from). */
export const urlRenderOptions = pdfPageOptions.extend({
  viewport: z
    .strictObject({ width: viewportSide(320, 3840), height: viewportSide(240, 2160) })
    .default({ width: 1280, height: 800 })
    .describe(`Browser window in CSS px, ${VIEWPORT_RULE} (default 1280 x 800).`),
  fullPage: z
    .boolean()
    .default(false)
    .describe('png/webp: the whole scrolling page instead of the window (default false).'),
});
export type UrlRenderOptions = z.output<typeof urlRenderOptions>;
