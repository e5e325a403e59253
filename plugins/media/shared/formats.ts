/**
 * The formats of the media family, as the spec lists them: its targets here; its inputs are
 * schema's (transcription reads the same ones).
 */
import type { FormatId } from '../../../schema/index.js';

export {
  AUDIO_INPUTS,
  LEGACY_VIDEO_FORMATS,
  MAIN_VIDEO_FORMATS,
  MEDIA_INPUTS,
  VIDEO_INPUTS,
} from '../../../schema/index.js';

export const AUDIO_TARGETS = [
  'mp3',
  'wav',
  'ogg',
  'aac',
  'flac',
  'm4a',
  'opus',
  'aiff',
] as const satisfies readonly FormatId[];
export type AudioTarget = (typeof AUDIO_TARGETS)[number];
export const isAudioTarget = (format: FormatId): format is AudioTarget =>
  (AUDIO_TARGETS as readonly FormatId[]).includes(format);

/** `prores` and `dnxhr` are `to` values that produce .mov files. */
export const VIDEO_TARGETS = [
  'mp4',
  'mov',
  'avi',
  'webm',
  'gif',
  'prores',
  'dnxhr',
] as const satisfies readonly FormatId[];
export type VideoTarget = (typeof VIDEO_TARGETS)[number];
export const isVideoTarget = (format: FormatId): format is VideoTarget =>
  (VIDEO_TARGETS as readonly FormatId[]).includes(format);
