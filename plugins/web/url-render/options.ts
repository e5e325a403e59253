import { z } from 'zod';
import { DEFAULT_FAIL_ON_HTTP_STATUS_CODES } from '../../../core/engines/chromium.js';
import { htmlPdfOptions } from '../shared/options.js';

const VIEWPORT_RULE = 'JSON {"width": 320-3840, "height": 240-2160}';
const viewportSide = (min: number, max: number) =>
  z
    .number()
    .int(`must be an integer from ${min} to ${max}`)
    .min(min, `must be at least ${min}`)
    .max(max, `must be at most ${max}`);

const statusCode = z
  .number()
  .int('must be HTTP status codes (whole numbers from 100 to 599)')
  .min(100, 'must be HTTP status codes from 100 to 599')
  .max(599, 'must be HTTP status codes from 100 to 599');

/**
 * The page options, plus the browser window for screenshots (and for the layout the PDF is printed from), and which
 * answers of the site fail the job.
 */
export const urlRenderOptions = htmlPdfOptions.extend({
  failOnHttpStatusCodes: z
    .array(statusCode)
    .max(100, 'must hold at most 100 codes')
    .default([...DEFAULT_FAIL_ON_HTTP_STATUS_CODES])
    .describe(
      "HTTP statuses of the page's own answer that fail the job, as JSON, e.g. [404, 599]: a code is itself, and " +
        '199, 299, 399, 499 or 599 stands for its whole class (499: 400 to 499). Default [499, 599]: every client ' +
        'and server error; [] renders whatever the site answers.',
    ),
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
