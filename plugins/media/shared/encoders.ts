/**
 * Encoder settings per output format, shared by conversions and the re-encoding tool ops, so
 * one format is always written the same way. Each is a fluent-ffmpeg step: (command) => command.
 */
import type { FfmpegCommand, MediaStream } from '../../../core/engines/ffmpeg.js';
import type { FormatId } from '../../../schema/index.js';
import { AUDIO_TARGETS } from './formats.js';

export type Configure = (command: FfmpegCommand) => FfmpegCommand;

/**
 * Formats whose audio this server can write: the conversion targets plus the legacy formats
 * that normalize-audio re-encodes in place. AMR is missing: Debian's ffmpeg has no AMR encoder.
 */
export const AUDIO_WRITABLE = [...AUDIO_TARGETS, 'wma', 'm4b', 'mp2', 'ac3'] as const satisfies readonly FormatId[];
export type AudioWritable = (typeof AUDIO_WRITABLE)[number];

/** PCM keeps a 24-bit source's depth; everything else (including lossy sources) becomes 16-bit. */
const pcm = (endian: 'le' | 'be') => (source: MediaStream | undefined) => (command: FfmpegCommand) =>
  command.audioCodec(`pcm_s${(source?.bitsPerRawSample ?? 16) > 16 ? 24 : 16}${endian}`);

// MP4-family audio is AAC, except that Apple Lossless stays lossless when re-encoded in place.
const mp4Audio = (source: MediaStream | undefined) => (command: FfmpegCommand) =>
  (source?.codec === 'alac' ? command.audioCodec('alac') : command.audioCodec('aac').audioBitrate(192)).outputOptions(
    '-movflags',
    '+faststart',
  );

const AUDIO_ENCODERS: Record<AudioWritable, (source: MediaStream | undefined) => Configure> = {
  // LAME VBR V2 (~190 kbit/s) and Vorbis q5 (~160 kbit/s): transparent for most listeners.
  mp3: () => (c) => c.audioCodec('libmp3lame').audioQuality(2),
  ogg: () => (c) => c.audioCodec('libvorbis').audioQuality(5),
  aac: () => (c) => c.audioCodec('aac').audioBitrate(192),
  m4a: mp4Audio,
  m4b: mp4Audio,
  opus: () => (c) => c.audioCodec('libopus').audioBitrate(128),
  flac: () => (c) => c.audioCodec('flac'),
  wav: pcm('le'),
  aiff: pcm('be'),
  wma: () => (c) => c.audioCodec('wmav2').audioBitrate(192),
  mp2: () => (c) => c.audioCodec('mp2').audioBitrate(192),
  // The AC-3 encoder picks its bitrate from the channel count (192k stereo, 448k for 5.1).
  ac3: () => (c) => c.audioCodec('ac3'),
};

export function isAudioWritable(format: string): format is AudioWritable {
  return (AUDIO_WRITABLE as readonly string[]).includes(format);
}

/** Audio encoder settings for `format`, given the source stream (for bit depth and ALAC). */
export function encodeAudio(format: AudioWritable, source?: MediaStream): Configure {
  return AUDIO_ENCODERS[format](source);
}

// 4:2:0 chroma needs even frame sizes; rounding down loses at most one pixel row or column.
const EVEN_SIZE = 'scale=trunc(iw/2)*2:trunc(ih/2)*2';

/** H.264 in yuv420p (plays everywhere); `crf` 18 is near transparent, 23 is x264's default. */
export function h264(crf: number, preset: 'veryfast' | 'medium'): Configure {
  return (c) =>
    c
      .videoCodec('libx264')
      .outputOptions('-preset', preset, '-crf', String(crf), '-pix_fmt', 'yuv420p', '-vf', EVEN_SIZE);
}

/**
 * VP9 in constant-quality mode (`-b:v 0`). `realtime` trades some compression for speed (conversions);
 * the slower `good` mode is for compress-video, where size is the point.
 */
export function vp9(crf: number, mode: 'realtime' | 'good'): Configure {
  const speed =
    mode === 'realtime' ? ['-deadline', 'realtime', '-cpu-used', '8'] : ['-deadline', 'good', '-cpu-used', '4'];
  return (c) =>
    c
      .videoCodec('libvpx-vp9')
      .outputOptions(
        '-crf',
        String(crf),
        '-b:v',
        '0',
        ...speed,
        '-row-mt',
        '1',
        '-pix_fmt',
        'yuv420p',
        '-vf',
        EVEN_SIZE,
      );
}

type EncodedVideoTarget = 'mp4' | 'mov' | 'avi' | 'webm' | 'prores' | 'dnxhr';

/** Video and audio settings of each video container written by conversions. */
export const VIDEO_ENCODERS: Record<EncodedVideoTarget, { video: Configure; audio: Configure }> = {
  mp4: {
    video: (c) => h264(23, 'veryfast')(c).outputOptions('-movflags', '+faststart'),
    audio: (c) => c.audioCodec('aac').audioBitrate(160),
  },
  mov: {
    video: (c) => h264(23, 'veryfast')(c).outputOptions('-movflags', '+faststart'),
    audio: (c) => c.audioCodec('aac').audioBitrate(160),
  },
  // AVI is asked for by old players and devices: MPEG-4 Part 2 tagged XVID with MP3 is what they read.
  avi: {
    video: (c) =>
      c.videoCodec('mpeg4').outputOptions('-q:v', '3', '-vtag', 'XVID', '-pix_fmt', 'yuv420p', '-vf', EVEN_SIZE),
    audio: (c) => c.audioCodec('libmp3lame').audioQuality(4),
  },
  webm: { video: vp9(32, 'realtime'), audio: (c) => c.audioCodec('libopus').audioBitrate(128) },
  // ProRes 422 HQ and DNxHR HQ: intermediate codecs for editing, 4:2:2, with PCM audio as editors expect.
  prores: {
    video: (c) =>
      c
        .videoCodec('prores_ks')
        .outputOptions('-profile:v', '3', '-vendor', 'apl0', '-pix_fmt', 'yuv422p10le', '-vf', EVEN_SIZE),
    audio: (c) => c.audioCodec('pcm_s16le'),
  },
  dnxhr: {
    video: (c) =>
      c.videoCodec('dnxhd').outputOptions('-profile:v', 'dnxhr_hq', '-pix_fmt', 'yuv422p', '-vf', EVEN_SIZE),
    audio: (c) => c.audioCodec('pcm_s16le'),
  },
};

/** GIF output: frame rate and the box the frames are fitted into (aspect kept, never enlarged). */
export const GIF_FPS = 12;
export const GIF_MAX_SIDE = 480;

/**
 * One pass with a generated palette: palettegen builds the 256 colours from the whole clip
 * (stats_mode=diff favours what moves), paletteuse maps frames onto it with an ordered dither,
 * which keeps files smaller than error diffusion and does not shimmer between frames.
 */
export function gifFilter(videoStreamIndex: number): string {
  return (
    `[0:${videoStreamIndex}]fps=${GIF_FPS},` +
    `scale='min(${GIF_MAX_SIDE},iw)':'min(${GIF_MAX_SIDE},ih)':force_original_aspect_ratio=decrease:flags=lanczos,` +
    'split[frames][sample];[sample]palettegen=stats_mode=diff[palette];' +
    '[frames][palette]paletteuse=dither=bayer:bayer_scale=5:diff_mode=rectangle'
  );
}
