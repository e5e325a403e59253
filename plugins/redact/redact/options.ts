/** The redact op's one option, `redact`, exactly as the wire contract states it (a JSON string on REST). */
import { z } from 'zod';

export const PATTERNS = ['email', 'phone', 'ssn', 'credit-card', 'iban'] as const;
export type PatternName = (typeof PATTERNS)[number];

const RULE =
  '{"patterns": [email, phone, ssn, credit-card, iban], "terms": ["exact phrase", ...]} with at least one pattern or ' +
  'term';
const MAX_TERMS = 200;
const MAX_TERM_LENGTH = 500;

export const redactOptions = z.object({
  redact: z
    .strictObject(
      {
        patterns: z
          .array(z.enum(PATTERNS, { error: `patterns must be among ${PATTERNS.join(', ')}` }), {
            error: 'patterns must be an array',
          })
          .default([])
          .refine((list) => new Set(list).size === list.length, { error: 'patterns lists a pattern twice' }),
        terms: z
          .array(
            z
              .string({ error: 'terms must be strings' })
              .trim()
              .min(1, 'terms must not be empty')
              .max(MAX_TERM_LENGTH, `terms must be at most ${MAX_TERM_LENGTH} characters`),
            { error: 'terms must be an array of strings' },
          )
          .max(MAX_TERMS, `at most ${MAX_TERMS} terms`)
          .default([]),
      },
      { error: (issue) => (issue.input === undefined ? `is required (${RULE})` : `must be ${RULE}`) },
    )
    .refine((spec) => spec.patterns.length + spec.terms.length > 0, { error: 'needs at least one pattern or term' })
    .describe(
      'What to remove: {"patterns": ["email", "phone", "ssn", "credit-card", "iban"], "terms": ["exact phrase"]}; at ' +
        'least one pattern or term; case-insensitive.',
    ),
});

export type RedactSpec = z.output<typeof redactOptions>['redact'];
