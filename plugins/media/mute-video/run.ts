import { singleInput, type FileResult, type PluginInput, type RunContext } from '../../../core/contract/index.js';
import { MediaRun, mapStreams, WORK_RATE } from '../shared/media.js';

/** Every video and subtitle stream copied as is; audio left out. Tags are kept. */
export async function muteVideo(inputs: readonly PluginInput[], ctx: RunContext): Promise<FileResult> {
  ctx.signal.throwIfAborted();
  const input = singleInput(inputs);
  const run = await MediaRun.open(input, ctx, WORK_RATE.streamCopy, { needs: 'layout' });
  run.videoStream(); // refuses a file with no video to mute
  const output = await run.outputPath(input.format);
  await run.ffmpeg({
    output,
    configure: (command) =>
      command.outputOptions(...mapStreams(run.media, (s) => s.type === 'video' || s.type === 'subtitle'), '-c', 'copy'),
  });
  return { path: output, format: input.format };
}
