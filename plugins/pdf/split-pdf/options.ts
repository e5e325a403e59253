import { z } from 'zod';
import { pageListField, requiredAs } from '../shared/options.js';
import { formatRange, parsePageRanges } from '../shared/page-ranges.js';

const SPLIT_RULE = '{"mode":"pages"} or {"mode":"ranges","ranges":"1-3,4,5-8"}';

// Each range becomes one file named after it, so a range listed twice would collide.
const splitRangesField = pageListField.superRefine((text, ctx) => {
  const parsed = parsePageRanges(text);
  const names = parsed.ok ? parsed.ranges.map(formatRange) : [];
  const repeated = names.find((name, i) => names.indexOf(name) !== i);
  if (repeated) ctx.addIssue({ code: 'custom', message: `range ${repeated} is listed twice` });
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
