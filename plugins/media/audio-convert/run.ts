import { singleInput, type FileResult, type PluginInput, type RunContext } from '../../../core/contract/index.js';
import { encodeAudio } from '../shared/encoders.js';
import type { AudioTarget } from '../shared/formats.js';
import { keepCoverArt, MediaRun, WORK_RATE } from '../shared/media.js';

/** The first audio track (of an audio file, or of a video: audio extraction), re-encoded; tags and cover art kept. */
export async function convertAudio(
  inputs: readonly PluginInput[],
  ctx: RunContext,
  to: AudioTarget,
): Promise<FileResult> {
  ctx.signal.throwIfAborted();
  // The encoder follows the source's codec (ALAC stays ALAC) and bit depth: ffprobe's facts, not the headers'.
  const run = await MediaRun.open(singleInput(inputs), ctx, WORK_RATE.audio, { needs: 'codecs' });
  const audio = run.audioStream();
  const output = await run.outputPath(to);
  await run.ffmpeg({
    output,
    configure: (command) =>
      encodeAudio(to, audio)(command.outputOptions('-map', `0:${audio.index}`, ...keepCoverArt(run.media, to))),
  });
  return { path: output, format: to };
}
