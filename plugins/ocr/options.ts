/** The ocr op's one option, `lang`, exactly as the wire contract states it. */
import { z } from 'zod';
import { OCR_LANGUAGES } from '../../core/engines/ocrmypdf.js';

const LANG_RULE = 'eng, fra, deu or jpn, or up to three of them joined with + (e.g. eng+fra)';
const MAX_LANGUAGES = 3;

/** Why `lang` is refused, or undefined when it is valid. */
export function langProblem(lang: string): string | undefined {
  const parts = lang.split('+');
  if (parts.length > MAX_LANGUAGES) return `must be ${LANG_RULE}: at most ${MAX_LANGUAGES} languages`;
  for (const part of parts) {
    if (!(OCR_LANGUAGES as readonly string[]).includes(part)) return `must be ${LANG_RULE}; '${part}' is not one of them`;
  }
  const repeated = parts.find((part, i) => parts.indexOf(part) !== i);
  if (repeated) return `lists ${repeated} twice`;
  return undefined;
}

export const ocrOptions = z.object({
  lang: z
    .string({ error: `must be ${LANG_RULE}` })
    .trim()
    .superRefine((lang, ctx) => {
      const problem = langProblem(lang);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .default('eng')
    .describe('Language(s) of the text: eng, fra, deu or jpn, or up to three joined with + (e.g. eng+fra). Default eng.'),
});
