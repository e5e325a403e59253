import { singleInput, type FileResult, type PluginInput, type RunContext } from '../../../core/contract/index.js';
import { gifFilter, VIDEO_ENCODERS } from '../shared/encoders.js';
import type { VideoTarget } from '../shared/formats.js';
import { firstAudioStream, MediaRun, videoWorkRate } from '../shared/media.js';

/** The main video track and the first audio track, re-encoded for `to`; a GIF gets a generated palette and no audio. */
export async function convertVideo(
  inputs: readonly PluginInput[],
  ctx: RunContext,
  to: VideoTarget,
): Promise<FileResult> {
  ctx.signal.throwIfAborted();
  const run = await MediaRun.open(singleInput(inputs), ctx, (media) => videoWorkRate(media), { needs: 'layout' });
  const video = run.videoStream();
  const output = await run.outputPath(to);
  if (to === 'gif') {
    await run.ffmpeg({ output, configure: (command) => command.complexFilter(gifFilter(video.index)).noAudio() });
  } else {
    const audio = firstAudioStream(run.media);
    const encoder = VIDEO_ENCODERS[to];
    await run.ffmpeg({
      output,
      configure: (command) => {
        const withVideo = encoder.video(command.outputOptions('-map', `0:${video.index}`));
        return audio ? encoder.audio(withVideo.outputOptions('-map', `0:${audio.index}`)) : withVideo;
      },
    });
  }
  return { path: output, format: to };
}
