/** /readyz's answer: store, queue, engines, confinement and the pools (documented; served by app.ts). */
import { z } from 'zod';

export const readinessSchema = z.object({
  status: z.enum(['ready', 'not ready']),
  checks: z
    .record(z.string(), z.string())
    .describe(
      'store and queue: ok, or the error; disk: ok, or "low: N MB free" when DATA_DIR\'s file system has less than ' +
        'DISK_MIN_FREE_MB left (then not ready).',
    ),
  unavailable: z
    .array(z.object({ plugin: z.string(), missing: z.array(z.string()) }))
    .describe('Plugins whose engines are missing.'),
  confinement: z
    .object({
      mode: z
        .enum(['bwrap', 'off'])
        .describe(
          "bwrap: engines run in jails without network, seeing only their job's files; off: ENGINE_SANDBOX=off.",
        ),
      working: z
        .boolean()
        .optional()
        .describe(
          'mode bwrap: whether a jail could be made at the last check (re-checked at most once a minute); false ' +
            'makes the server not ready.',
        ),
      reason: z.string().optional(),
    })
    .describe('How engines (LibreOffice, ffmpeg, ImageMagick, Ghostscript...) are confined (docs/SECURITY.md).'),
  sandbox: z
    .object({
      size: z.number().int(),
      processes: z.number().int(),
      busy: z.number().int(),
      waiting: z.number().int(),
      killed: z.number().int(),
      recycled: z.number().int(),
    })
    .describe('The pool of processes plugin runs execute in (informative: they start on demand).'),
  office: z
    .object({
      mode: z
        .enum(['pool', 'cold', 'disabled'])
        .describe(
          'pool: warm LibreOffice listeners; cold: fallen back to a cold soffice per file (fallbackReason); ' +
            'disabled: OFFICE_POOL_SIZE=0.',
        ),
      size: z.number().int(),
      listeners: z.array(
        z.object({
          state: z.string(),
          pid: z.number().int().optional(),
          conversions: z.number().int(),
          rssMb: z.number(),
        }),
      ),
      conversions: z.number().int(),
      restarts: z.number().int(),
      recycled: z.number().int(),
      retried: z.number().int(),
      coldFallbacks: z.number().int(),
      fallbackReason: z.string().optional(),
    })
    .describe('The warm LibreOffice pool (informative: a cold fallback still converts).'),
  transcription: z
    .object({
      engine: z.enum(['pocketsphinx', 'whisper.cpp']),
      model: z.string(),
      sha256: z.string().optional(),
      listed: z
        .boolean()
        .optional()
        .describe('Whether the model is among the known official ones (else WHISPER_MODEL_SHA256 vouched for it).'),
      languages: z.union([z.array(z.string()), z.string()]),
      whisper: z.string().optional(),
    })
    .describe('The speech engine in use and its model.'),
});
