import {
  PluginError,
  singleInput,
  type FileResult,
  type PluginInput,
  type RunContext,
} from '../../../core/contract/index.js';
import type { FormatId } from '../../../schema/index.js';
import { MediaRun, mapStreams, WORK_RATE } from '../shared/media.js';
import type { TrimOptions } from './options.js';

/**
 * A FLAC header states the total length, which a stream copy cannot rewrite (players would show
 * the old length). FLAC re-encoding is itself lossless, so FLAC audio is re-encoded instead.
 */
const REENCODE_LOSSLESSLY: Partial<Record<FormatId, string[]>> = { flac: ['-c:a', 'flac'] };

/**
 * Lossless cut by stream copy: ffmpeg seeks the input to `start` and copies `end - start`
 * seconds. Video can only begin on a keyframe, so the copy starts at the keyframe at or before
 * `start` (strictly before it when B-frames delay presentation times): MP4/MOV/M4V/3GP hide that
 * lead-in with an edit list; other containers play it, at most one keyframe interval (typically
 * 1-10 s). Audio cuts are accurate to one codec frame.
 */
export async function trimMedia(
  inputs: readonly PluginInput[],
  { trim }: TrimOptions,
  ctx: RunContext,
): Promise<FileResult> {
  ctx.signal.throwIfAborted();
  const input = singleInput(inputs);
  const run = await MediaRun.open(input, ctx, WORK_RATE.streamCopy, { needs: 'layout' });
  const duration = run.durationSec;
  if (duration !== undefined && trim.start >= duration) {
    throw new PluginError(
      `trim.start (${trim.start} s) is at or after the end of the media (${duration.toFixed(2)} s)`,
    );
  }
  const end = Math.min(trim.end, duration ?? trim.end);
  const output = await run.outputPath(input.format);
  await run.ffmpeg({
    output,
    durationSec: end - trim.start,
    // Data streams (timecode, telemetry) often cannot be muxed back after a seek: left out.
    configure: (command) =>
      command
        .seekInput(trim.start)
        .duration(end - trim.start)
        .outputOptions(
          ...mapStreams(run.media, (s) => ['video', 'audio', 'subtitle'].includes(s.type)),
          '-c',
          'copy',
          ...(REENCODE_LOSSLESSLY[input.format] ?? []),
        ),
  });
  return { path: output, format: input.format };
}
