import { singleInput, type FileResult, type PluginInput, type RunContext } from '../../../core/contract/index.js';
import type { FormatId } from '../../../schema/index.js';
import { MediaRun, mapStreams, WORK_RATE } from '../shared/media.js';

/** Muxer options that stop a container from writing identifying data of its own. */
const FORMAT_SPECIFIC: Partial<Record<FormatId, string[]>> = {
  // No ID3v2 tag at all (an empty one still says which program wrote the file).
  mp3: ['-id3v2_version', '0'],
};

/**
 * Strip hidden metadata by stream copy (no re-encoding):
 * - container and per-stream tags (title, artist, comment, GPS location, creation time, ...)
 *   and chapters: -map_metadata -1 -map_chapters -1;
 * - cover art, data tracks (GPS/telemetry such as GoPro GPMD, timecode) and attachments:
 *   only audio, video and subtitle streams are copied;
 * - the writer's own "encoder: Lavf..." tags: bitexact flags.
 */
export async function cleanMetadata(inputs: readonly PluginInput[], ctx: RunContext): Promise<FileResult> {
  ctx.signal.throwIfAborted();
  const input = singleInput(inputs);
  // Only which streams are audio, video or subtitle: the headers tell that as ffprobe does.
  const run = await MediaRun.open(input, ctx, WORK_RATE.streamCopy, { needs: 'layout' });
  const keep = mapStreams(
    run.media,
    (s) => s.type === 'audio' || s.type === 'subtitle' || (s.type === 'video' && !s.attachedPicture),
  );
  const output = await run.outputPath(input.format);
  await run.ffmpeg({
    output,
    configure: (command) =>
      command.outputOptions(
        ...keep,
        '-c',
        'copy',
        '-map_metadata',
        '-1',
        '-map_chapters',
        '-1',
        '-fflags',
        '+bitexact',
        '-flags:v',
        '+bitexact',
        '-flags:a',
        '+bitexact',
        ...(FORMAT_SPECIFIC[input.format] ?? []),
      ),
  });
  return { path: output, format: input.format };
}
