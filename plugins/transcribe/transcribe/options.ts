import { z } from 'zod';

/** The spec's languages. */
export const TRANSCRIBE_LANGUAGES = ['en', 'fr', 'de', 'es', 'it', 'nl', 'pt', 'ja'] as const;
export type TranscribeLanguage = (typeof TRANSCRIBE_LANGUAGES)[number];

export const transcribeOptions = z.object({
  lang: z
    .enum(TRANSCRIBE_LANGUAGES)
    .optional()
    .describe(
      'Spoken language. Omitted: detected by whisper when the server has a whisper model (WHISPER_MODEL), ' +
        'else English with the embedded engine (pocketsphinx); without a whisper model, other languages are ' +
        'refused per file.',
    ),
});

export type TranscribeOptions = z.output<typeof transcribeOptions>;
