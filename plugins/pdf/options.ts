/** Option fields of the PDF tools, named and bounded exactly as the wire contract states. */
import { z } from 'zod';
import { formatRange, parsePageRanges } from './shared/page-ranges.js';

/** Longest page list accepted; far more than any real selection needs. */
const MAX_PAGE_LIST_LENGTH = 2000;

/** Error for a field: "is required (<rule>)" when missing, "must be <rule>" when wrong. */
const requiredAs = (rule: string) => (issue: { input: unknown }) =>
  issue.input === undefined ? `is required (${rule})` : `must be ${rule}`;

const ANGLES = [90, 180, 270];
const ANGLE_RULE = '90, 180 or 270';
const PAGE_LIST_RULE = 'page numbers and ranges such as 1-3, 5, 8-10';
const SPLIT_RULE = '{"mode":"pages"} or {"mode":"ranges","ranges":"1-3,4,5-8"}';
const PASSWORD_RULE = '1 to 128 characters';

const pageListField = z
  .string({ error: requiredAs(PAGE_LIST_RULE) })
  .max(MAX_PAGE_LIST_LENGTH, `must be at most ${MAX_PAGE_LIST_LENGTH} characters`)
  .superRefine((text, ctx) => {
    const parsed = parsePageRanges(text);
    if (!parsed.ok) ctx.addIssue({ code: 'custom', message: parsed.error });
  });

// Each range becomes one file named after it, so a range listed twice would collide.
const splitRangesField = pageListField.superRefine((text, ctx) => {
  const parsed = parsePageRanges(text);
  const names = parsed.ok ? parsed.ranges.map(formatRange) : [];
  const repeated = names.find((name, i) => names.indexOf(name) !== i);
  if (repeated) ctx.addIssue({ code: 'custom', message: `range ${repeated} is listed twice` });
});

export const noOptions = z.object({});

export const rotateOptions = z.object({
  angle: z
    .number({ error: requiredAs(ANGLE_RULE) })
    .int({ error: `must be ${ANGLE_RULE}` })
    .refine((angle) => ANGLES.includes(angle), { error: `must be ${ANGLE_RULE}` })
    // The enum is for the JSON Schema (OpenAPI, GraphQL's Int): the refine above is what checks it.
    .meta({ description: 'Clockwise rotation in degrees applied to every page: 90, 180 or 270.', enum: [...ANGLES] }),
});

export const splitOptions = z.object({
  split: z
    .discriminatedUnion(
      'mode',
      [
        z.strictObject({ mode: z.literal('pages') }),
        z.strictObject({ mode: z.literal('ranges'), ranges: splitRangesField }),
      ],
      {
        error: requiredAs(SPLIT_RULE),
      },
    )
    .describe(
      '{"mode":"pages"} for one PDF per page, or {"mode":"ranges","ranges":"1-3,4,5-8"} for one PDF per range.',
    ),
});

export const extractPagesOptions = z.object({
  pages: pageListField.describe('1-based pages and ranges to keep, e.g. "1-3, 5, 8-10".'),
});

export const deletePagesOptions = z.object({
  pages: pageListField.describe('1-based pages and ranges to remove, e.g. "1-3, 5, 8-10".'),
});

/** Secret: never stored, never logged, never on a command line. */
const passwordField = (description: string) =>
  z
    .string({ error: requiredAs(PASSWORD_RULE) })
    .min(1, `must be ${PASSWORD_RULE}`)
    .max(128, `must be ${PASSWORD_RULE}`)
    .meta({ description, secret: true });

export const protectOptions = z.object({
  password: passwordField('Password needed to open the PDF, 1-128 characters.'),
});
export const unlockOptions = z.object({ password: passwordField("The PDF's current password.") });
