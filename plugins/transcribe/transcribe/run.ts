/**
 * transcribe: speech to text for audio and video files. One row per file:
 * { language, duration, text, segments: [{ start, end, text }] }, times in seconds.
 *
 * Two engines, chosen per file:
 * - whisper.cpp when the operator configured a model (WHISPER_MODEL): every language, or
 *   auto-detection, with segment timestamps. The PCM is fed to it in chunks of at most 30 s cut
 *   at pauses, so a 2-hour file never sits in memory;
 * - pocketsphinx otherwise (Debian's English model, the embedded default): English only. Other
 *   languages are refused per file, never transcribed with the English model.
 */
import {
  PluginError,
  singleInput,
  type JsonResult,
  type PluginInput,
  type RunContext,
} from '../../../core/contract/index.js';
import {
  POCKETSPHINX_AUDIO_FILTERS,
  POCKETSPHINX_LANGUAGE,
  recognizeSpeech,
  type Utterance,
} from '../../../core/engines/pocketsphinx.js';
import { transcribePcm, whisperModelIsMultilingual, whisperModelPath } from '../../../core/engines/whisper.js';
import {
  cleanedForRecognition,
  pcmLayout,
  planChunks,
  prepareAudio,
  readChunk,
  type PreparedAudio,
} from '../shared/audio.js';
import type { TranscribeLanguage, TranscribeOptions } from './options.js';

const LANGUAGE_NAMES: Record<TranscribeLanguage, string> = {
  en: 'English',
  fr: 'French',
  de: 'German',
  es: 'Spanish',
  it: 'Italian',
  nl: 'Dutch',
  pt: 'Portuguese',
  ja: 'Japanese',
};

export interface Segment {
  start: number;
  end: number;
  text: string;
}
export interface TranscriptRow {
  /** ISO 639-1: the language asked for, or the one whisper detected (any it knows), or "en". */
  language: string;
  /** Seconds, from the media. */
  duration: number;
  text: string;
  segments: Segment[];
}

/** The part of the 0-100 progress the conversion to PCM fills; recognition fills the rest. */
const CONVERT_SHARE = 15;

const round2 = (seconds: number) => Math.round(seconds * 100) / 100;

/**
 * The row's segments from the engine's utterances: times rounded to 10 ms, clamped to the
 * media's duration, each starting no earlier than the previous one ended, start < end; empty
 * ones dropped.
 */
export function toSegments(utterances: readonly Utterance[], durationSec: number): Segment[] {
  const segments: Segment[] = [];
  const limit = round2(durationSec);
  for (const utterance of [...utterances].sort((a, b) => a.start - b.start)) {
    const text = utterance.text.trim();
    if (!text) continue;
    const start = Math.max(round2(utterance.start), segments.at(-1)?.end ?? 0);
    const end = Math.min(round2(utterance.end), limit);
    if (!(start < end)) continue;
    segments.push({ start, end, text });
  }
  return segments;
}

/** whisper chunks: at most one 30 s window each, cut at a pause at least 10 s in. */
const CHUNK_MAX_SECONDS = 30;
const CHUNK_MIN_SECONDS = 10;

async function withPocketsphinx(audio: PreparedAudio, ctx: RunContext): Promise<TranscriptRow> {
  // A recording with a noise floor is denoised first; whisper, trained on noisy audio, reads the plain conversion.
  const cleaned = await cleanedForRecognition(audio, POCKETSPHINX_AUDIO_FILTERS, ctx);
  const utterances = await recognizeSpeech(cleaned.wavPath, ctx, {
    synthetic: cleaned.digitalSilence,
    bandLimited: cleaned.bandLimited,
    onUtterance: (u) =>
      ctx.progress(
        Math.min(99, CONVERT_SHARE + Math.floor(((100 - CONVERT_SHARE) * u.end) / Math.max(audio.durationSec, 0.01))),
      ),
  });
  ctx.signal.throwIfAborted();
  const segments = toSegments(utterances, audio.durationSec);
  return {
    language: POCKETSPHINX_LANGUAGE,
    duration: round2(audio.durationSec),
    text: segments.map((s) => s.text).join(' '),
    segments,
  };
}

/**
 * whisper, chunk by chunk: the language is detected on the first chunk with sound (unless
 * given) and kept for the rest; segment times are shifted by the chunk's start.
 */
async function withWhisper(
  audio: PreparedAudio,
  modelPath: string,
  lang: TranscribeLanguage | undefined,
  ctx: RunContext,
): Promise<TranscriptRow> {
  const layout = await pcmLayout(audio.wavPath);
  const chunks = await planChunks(
    audio.wavPath,
    layout,
    { maxSeconds: CHUNK_MAX_SECONDS, minSeconds: CHUNK_MIN_SECONDS },
    ctx.signal,
  );
  let language: string | undefined = lang;
  const utterances: Utterance[] = [];
  for (const chunk of chunks) {
    ctx.signal.throwIfAborted();
    if (!chunk.silent) {
      const pcm = await readChunk(audio.wavPath, layout, chunk);
      const result = await transcribePcm(pcm, { modelPath, language: language ?? 'auto', signal: ctx.signal });
      language ??= result.language;
      for (const segment of result.segments)
        utterances.push({
          start: chunk.start + segment.start,
          end: chunk.start + segment.end,
          text: segment.text,
          words: [],
        });
    }
    ctx.progress(
      Math.min(99, CONVERT_SHARE + Math.floor(((100 - CONVERT_SHARE) * chunk.end) / Math.max(audio.durationSec, 0.01))),
    );
  }
  const segments = toSegments(utterances, audio.durationSec);
  // All silence: nothing was detected, so the row says what was asked for (or English).
  return {
    language: language ?? 'en',
    duration: round2(audio.durationSec),
    text: segments.map((s) => s.text).join(' '),
    segments,
  };
}

async function transcribeFile(
  input: Parameters<typeof prepareAudio>[0],
  lang: TranscribeLanguage | undefined,
  ctx: RunContext,
): Promise<TranscriptRow> {
  const modelPath = whisperModelPath();
  // Refusals come before any decoding: a language no configured engine speaks.
  if (!modelPath && lang !== undefined && lang !== POCKETSPHINX_LANGUAGE) {
    throw new PluginError(
      `${LANGUAGE_NAMES[lang]} needs the whisper model; set WHISPER_MODEL (only English is transcribed without it)`,
    );
  }
  // An English-only model (base.en...) cannot detect a language: it transcribes English.
  const englishOnly = modelPath !== undefined && !whisperModelIsMultilingual(modelPath);
  if (englishOnly && lang !== undefined && lang !== 'en') {
    throw new PluginError(
      `${LANGUAGE_NAMES[lang]} needs a multilingual whisper model; the server's (WHISPER_MODEL) is English only`,
    );
  }
  const audio = await prepareAudio(input, ctx, (pct) => ctx.progress(Math.floor((pct * CONVERT_SHARE) / 100)));
  return modelPath ? withWhisper(audio, modelPath, englishOnly ? 'en' : lang, ctx) : withPocketsphinx(audio, ctx);
}

export async function transcribe(
  inputs: readonly PluginInput[],
  options: TranscribeOptions,
  ctx: RunContext,
): Promise<JsonResult> {
  ctx.signal.throwIfAborted();
  const row = await transcribeFile(singleInput(inputs), options.lang, ctx);
  ctx.signal.throwIfAborted();
  ctx.progress(100);
  return { row: { ...row } };
}
