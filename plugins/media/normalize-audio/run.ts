import {
  PluginError,
  singleInput,
  type FileResult,
  type PluginInput,
  type RunContext,
} from '../../../core/contract/index.js';
import { encodeAudio, isAudioWritable } from '../shared/encoders.js';
import { keepCoverArt, MediaRun, WORK_RATE } from '../shared/media.js';
import { applyFilter, MEASURE_FILTER, parseMeasurement } from './loudnorm.js';

/**
 * Two-pass loudnorm to -16 LUFS: measure (progress 0-50), then apply the measured values with
 * linear=true (50-100) and re-encode in the input's own format. Tags and cover art are kept.
 */
export async function normalizeAudio(inputs: readonly PluginInput[], ctx: RunContext): Promise<FileResult> {
  ctx.signal.throwIfAborted();
  const input = singleInput(inputs);
  const format = input.format;
  if (!isAudioWritable(format)) throw new PluginError(`normalize-audio cannot write ${format.toUpperCase()} files`);
  // The output keeps the source's exact sample rate, codec and bit depth: ffprobe's facts, not the headers'.
  const run = await MediaRun.open(input, ctx, 2 * WORK_RATE.audio, { needs: 'codecs' });
  const audio = run.audioStream();
  const selectAudio = ['-map', `0:${audio.index}`];
  const measured = parseMeasurement(
    await run.ffmpeg({
      output: '-',
      progressSpan: [0, 50],
      configure: (command) => command.outputOptions(...selectAudio, '-af', MEASURE_FILTER, '-f', 'null'),
    }),
  );
  const output = await run.outputPath(format);
  await run.ffmpeg({
    output,
    progressSpan: [50, 100],
    configure: (command) =>
      encodeAudio(
        format,
        audio,
      )(
        command.outputOptions(
          ...selectAudio,
          ...keepCoverArt(run.media, format),
          '-af',
          applyFilter(measured),
          // loudnorm resamples to 192 kHz internally; give the file back its own rate.
          ...(audio.sampleRate ? ['-ar', String(audio.sampleRate)] : []),
        ),
      ),
  });
  return { path: output, format };
}
