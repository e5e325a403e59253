/**
 * The audio and video formats the service reads with ffmpeg, as the spec lists them: the inputs of
 * the media family and of transcription. One list, so the families cannot drift apart.
 */
import type { FormatId } from './formats.js';

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

export const MEDIA_INPUTS = [...AUDIO_INPUTS, ...VIDEO_INPUTS] as const;
