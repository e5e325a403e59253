/** The formats of the media family, as the spec lists them. */
import type { FormatId } from '../../../schema/index.js';

export const AUDIO_INPUTS = [
  'mp3',
  'wav',
  'ogg',
  'flac',
  'aac',
  'm4a',
  'opus',
  'aiff',
  'wma',
  'amr',
  'm4b',
  'mp2',
  'ac3',
] as const satisfies readonly FormatId[];
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

/** Video containers that convert to every video target and take the video tool ops. */
export const MAIN_VIDEO_FORMATS = ['mp4', 'mov', 'avi', 'webm'] as const satisfies readonly FormatId[];
/** Legacy and broadcast containers: input-only, and they convert to the main four only (spec). */
export const LEGACY_VIDEO_FORMATS = [
  'mkv',
  'wmv',
  'flv',
  'm4v',
  '3gp',
  'mpeg',
  'ts',
  'mts',
  'm2ts',
  'vob',
  'ogv',
] as const satisfies readonly FormatId[];
export const VIDEO_INPUTS = [...MAIN_VIDEO_FORMATS, ...LEGACY_VIDEO_FORMATS] as const;
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

export const MEDIA_INPUTS = [...AUDIO_INPUTS, ...VIDEO_INPUTS] as const;
