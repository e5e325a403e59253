/** What every transcribe plugin declares: the licences of what it links, the engines it runs, its default limits. */
import { scaledTimeout, type Plugin } from '../../../core/contract/index.js';
import { FFMPEG, FFPROBE } from '../../../core/engines/ffmpeg.js';
import { POCKETSPHINX } from '../../../core/engines/pocketsphinx.js';
import { WHISPER_LICENSE } from '../../../core/engines/whisper.js';

export const transcribeFamily = {
  // whisper.cpp is linked (a Node addon); ffmpeg and pocketsphinx run as programs and declare their own licences.
  licenses: [WHISPER_LICENSE],
  engines: [FFMPEG, FFPROBE, POCKETSPHINX],
  limits: {
    // pocketsphinx decodes at about 0.3x real time here (7.7 s for 24.7 s of speech). The size
    // does not give the length (a 2-hour 16 kb/s Opus file is 14 MB), so the ceiling is wide:
    // 15 minutes plus 3 minutes per MB, at most 6 hours.
    timeoutMs: scaledTimeout({ baseMs: 15 * 60_000, perMbMs: 180_000, maxMs: 6 * 3600_000 }),
    // whisper with ggml-base: its 148 MB of weights, about 250 MB of compute buffers and one
    // 30 s chunk; small (466 MB) fits too, medium and large do not.
    memoryMb: 2048,
    // Recognition takes the cores it is given.
    concurrency: 1,
  },
} satisfies Pick<Plugin, 'licenses' | 'engines' | 'limits'>;
