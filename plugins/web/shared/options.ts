/**
 * Page options shared by the web plugins: paper, margins, header and footer, when the page is ready, and what the PDF
 * holds besides the page (outline, tags, metadata).
 */
import { z } from 'zod';
import type { PdfRenderOptions, WaitFor } from '../../../core/engines/chromium.js';
import { pdfMetadataOption, pdfuaOption, type PdfMetadataEdit } from '../../../core/engines/pdf-metadata.js';

/** Longest a `waitFor` delay may be. */
export const MAX_WAIT_MS = 10_000;
const MAX_TEMPLATE = 20_000;

/**
 * Whether a header or footer template imports a stylesheet. Chromium prints templates without loading anything,
 * and an `@import` (however its name is escaped in CSS) makes the whole print fail: refused up front instead.
 */
export function importsStylesheet(template: string): boolean {
  const unescaped = template
    .replace(/\\([0-9a-f]{1,6})\s?/gi, (_, hex: string) =>
      String.fromCodePoint(Math.min(Number.parseInt(hex, 16), 0x10ffff)),
    )
    .replace(/\\(.)/g, '$1')
    .replace(/\/\*[\s\S]*?\*\//g, '');
  return /@import/i.test(unescaped);
}

const templateField = z
  .string()
  .max(MAX_TEMPLATE)
  .refine((template) => !importsStylesheet(template), 'must not import stylesheets (@import): styles must be inline')
  .optional();

const millimetres = z.number().min(0, 'must be 0 or more').max(100, 'must be at most 100 mm');

/** `load`, `networkidle`, a delay (`1500`, `1500ms`, `2s`, at most 10 s), or else a CSS selector to wait for. */
export function parseWaitFor(raw: string): WaitFor | { error: string } {
  const text = raw.trim();
  if (text === 'load' || text === 'networkidle') return { kind: text };
  const delay = /^(\d+(?:\.\d+)?)\s*(ms|s)?$/.exec(text);
  if (delay) {
    const ms = Math.round(Number(delay[1]) * (delay[2] === 's' ? 1000 : 1));
    return ms <= MAX_WAIT_MS ? { kind: 'delay', ms } : { error: `a delay of at most ${MAX_WAIT_MS / 1000} s` };
  }
  if (!text) return { error: 'load, networkidle, a CSS selector or a delay such as 2s' };
  return { kind: 'selector', selector: text };
}

const waitForField = z
  .string()
  .max(500)
  .default('load')
  .superRefine((text, ctx) => {
    const parsed = parseWaitFor(text);
    if ('error' in parsed) ctx.addIssue({ code: 'custom', message: `must be ${parsed.error}` });
  })
  .describe(
    'When the page is ready: load (default), networkidle, a CSS selector to wait for, or a delay such as 2s (at most ' +
      '10 s).',
  );

export const pdfPageOptions = z.object({
  paper: z
    .enum(['A4', 'Letter', 'Legal', 'A3', 'A5'])
    .default('A4')
    .describe('Paper size: A4 (default), Letter, Legal, A3 or A5.'),
  landscape: z.boolean().default(false).describe('Landscape orientation.'),
  margin: z
    .strictObject({ top: millimetres, right: millimetres, bottom: millimetres, left: millimetres })
    .default({ top: 10, right: 10, bottom: 10, left: 10 })
    .describe('Margins in mm as JSON: {"top":10,"right":10,"bottom":10,"left":10} (default 10 each).'),
  scale: z
    .number()
    .min(0.1, 'must be at least 0.1')
    .max(2, 'must be at most 2')
    .default(1)
    .describe('Rendering scale, 0.1 to 2 (default 1).'),
  printBackground: z.boolean().default(true).describe('Print background colours and images (default true).'),
  headerHtml: templateField.describe(
    'HTML of the header on every page; elements with class pageNumber, totalPages, date or title are filled in. ' +
      'Styles must be inline.',
  ),
  footerHtml: templateField.describe(
    'HTML of the footer on every page, e.g. <span class="pageNumber"></span> / <span class="totalPages"></span>.',
  ),
  waitFor: waitForField,
  preferCssPageSize: z
    .boolean()
    .default(false)
    .describe("The page size of the document's CSS @page rule wins over paper and landscape (default false)."),
  emulatedMediaType: z
    .enum(['print', 'screen'])
    .default('print')
    .describe(
      'PDF: the CSS media type the page is printed with: print (default; @media print rules apply) or screen (the ' +
        'page as a browser window shows it).',
    ),
  tagged: z
    .boolean()
    .default(false)
    .describe('A tagged (structured, accessible) PDF: headings, paragraphs, lists and tables as tags (default false).'),
  pdfua: pdfuaOption,
  metadata: pdfMetadataOption.optional(),
});

/** The bookmarks option, on by default where the document has headings worth navigating (Markdown). */
export const outlineOption = (byDefault: boolean) =>
  z
    .boolean()
    .default(byDefault)
    .describe(
      `A document outline (PDF bookmarks) from the headings, h1 to h6; makes the PDF tagged (default ${byDefault}).`,
    );

/** The page options of a page that runs its own scripts (an HTML upload, a web page): no outline unless asked. */
export const htmlPdfOptions = pdfPageOptions.extend({
  outline: outlineOption(false),
  failOnConsoleExceptions: z
    .boolean()
    .default(false)
    .describe("Fail the job when the page's scripts throw an uncaught exception, naming it (default false)."),
});
export type PdfPageOptions = z.output<typeof pdfPageOptions> & { outline: boolean; failOnConsoleExceptions?: boolean };

/** The wire options as the renderer takes them. */
export function pdfRenderOptions(options: PdfPageOptions): PdfRenderOptions {
  return {
    format: options.paper,
    landscape: options.landscape,
    margin: options.margin,
    scale: options.scale,
    printBackground: options.printBackground,
    ...(options.headerHtml !== undefined ? { headerHtml: options.headerHtml } : {}),
    ...(options.footerHtml !== undefined ? { footerHtml: options.footerHtml } : {}),
    waitFor: parseWaitFor(options.waitFor) as WaitFor,
    outline: options.outline,
    // PDF/UA needs the tags; the outline asks for them itself.
    tagged: options.tagged || options.pdfua,
    preferCssPageSize: options.preferCssPageSize,
    media: options.emulatedMediaType,
    failOnConsoleExceptions: options.failOnConsoleExceptions ?? false,
  };
}

/** What is written into the printed PDF afterwards. */
export function pdfMetadataEdit(options: PdfPageOptions): PdfMetadataEdit {
  return { metadata: options.metadata, pdfua: options.pdfua };
}
