/** Option fields the PDF tools share, named and bounded exactly as the wire contract states. */
import { z } from 'zod';
import { parsePageRanges } from './page-ranges.js';

/** Longest page list accepted; far more than any real selection needs. */
const MAX_PAGE_LIST_LENGTH = 2000;

const PAGE_LIST_RULE = 'page numbers and ranges such as 1-3, 5, 8-10';
const PASSWORD_RULE = '1 to 128 characters';

/** Error for a field: "is required (<rule>)" when missing, "must be <rule>" when wrong. */
export const requiredAs = (rule: string) => (issue: { input: unknown }) =>
  issue.input === undefined ? `is required (${rule})` : `must be ${rule}`;

export const pageListField = z
  .string({ error: requiredAs(PAGE_LIST_RULE) })
  .max(MAX_PAGE_LIST_LENGTH, `must be at most ${MAX_PAGE_LIST_LENGTH} characters`)
  .superRefine((text, ctx) => {
    const parsed = parsePageRanges(text);
    if (!parsed.ok) ctx.addIssue({ code: 'custom', message: parsed.error });
  });

export const noOptions = z.object({});

/** Secret: never stored, never logged, never on a command line. */
export const passwordField = (description: string) =>
  z
    .string({ error: requiredAs(PASSWORD_RULE) })
    .min(1, `must be ${PASSWORD_RULE}`)
    .max(128, `must be ${PASSWORD_RULE}`)
    .meta({ description, secret: true });
