import { singleInput, type FileResult, type PluginInput, type RunContext } from '../../../core/contract/index.js';
import { h264, vp9, type Configure } from '../shared/encoders.js';
import { firstAudioStream, MediaRun, videoWorkRate } from '../shared/media.js';
import { h264Crf, vp9Crf } from './options.js';

/**
 * Re-encode at a constant quality: H.264 (x264 `medium`, a better size/quality trade than the
 * conversions' `veryfast`) or VP9 for WEBM; audio to a modest bitrate in the container's usual codec.
 */
export async function compressVideo(
  inputs: readonly PluginInput[],
  { quality }: { quality: number },
  ctx: RunContext,
): Promise<FileResult> {
  ctx.signal.throwIfAborted();
  const input = singleInput(inputs);
  const webm = input.format === 'webm';
  // Slower settings than conversions: twice the work per second, VP9 `good` four times.
  const run = await MediaRun.open(input, ctx, (media) => videoWorkRate(media, webm ? 12 : 6), { needs: 'layout' });
  const video = run.videoStream();
  const audio = firstAudioStream(run.media);
  const encodeVideo = webm ? vp9(vp9Crf(quality), 'good') : h264(h264Crf(quality), 'medium');
  const encodeAudio: Configure = webm
    ? (c) => c.audioCodec('libopus').audioBitrate(96)
    : input.format === 'avi'
      ? (c) => c.audioCodec('libmp3lame').audioBitrate(128)
      : (c) => c.audioCodec('aac').audioBitrate(128).outputOptions('-movflags', '+faststart');
  const output = await run.outputPath(input.format);
  await run.ffmpeg({
    output,
    configure: (command) => {
      const withVideo = encodeVideo(command.outputOptions('-map', `0:${video.index}`));
      return audio ? encodeAudio(withVideo.outputOptions('-map', `0:${audio.index}`)) : withVideo;
    },
  });
  return { path: output, format: input.format };
}
