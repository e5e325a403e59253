/**
 * A picture of a file's first look: a PDF page (pdftoppm), a video frame (ffmpeg), an office
 * document's first page (LibreOffice to PDF, then pdftoppm) or an image itself, resized with sharp
 * to the asked box and written as PNG, WEBP or JPG (the job's `to`).
 */
import { copyFile, mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import {
  PluginError,
  singleInput,
  type FileResult,
  type PluginInput,
  type RunContext,
} from '../../../core/contract/index.js';
import { PROBE_TIMEOUT_MS, ffmpegFailure, probe, runFfmpeg } from '../../../core/engines/ffmpeg.js';
import { convertDocument } from '../../../core/engines/libreoffice.js';
import { renderPages } from '../../../core/engines/poppler.js';
import { OFFICE_EXPORT, THUMBNAIL_OUTPUTS, VIDEO_INPUTS } from './formats.js';
import { DEFAULT_WIDTH, type ThumbnailOptions } from './options.js';
import type { FormatId } from '../../../schema/index.js';

const isOneOf = <T extends string>(list: readonly T[], value: string): value is T =>
  (list as readonly string[]).includes(value);

/** Render one PDF page to a PNG big enough for the box (twice its longer side, for a sharp downscale). */
async function pdfPage(pdf: string, page: number, box: number, ctx: RunContext): Promise<string> {
  const dir = path.join(ctx.workDir, 'page');
  await mkdir(dir, { recursive: true });
  try {
    await renderPages(pdf, path.join(dir, 'page'), ctx, {
      dpi: 72,
      firstPage: page,
      lastPage: page,
      scaleTo: Math.min(8192, box * 2),
    });
  } catch (err) {
    if (err instanceof PluginError && /Wrong page range/i.test(err.message))
      throw new PluginError(`The PDF has no page ${page}`, { cause: err });
    throw err;
  }
  const [file] = (await readdir(dir)).filter((f) => f.endsWith('.png'));
  if (!file) throw new PluginError(`The PDF has no page ${page}`);
  return path.join(dir, file);
}

/** One frame at `time` (default 10% of the duration) as PNG. */
async function videoFrame(input: string, format: FormatId, time: number | undefined, ctx: RunContext): Promise<string> {
  const output = path.join(ctx.workDir, 'frame.png');
  try {
    const media = await probe(input, {
      signal: ctx.signal,
      timeoutMs: Math.min(PROBE_TIMEOUT_MS, ctx.remainingMs()),
      format,
    });
    if (!media.streams.some((s) => s.type === 'video' && !s.attachedPicture))
      throw new PluginError('The file has no video to take a frame from');
    const duration = media.durationSec ?? 0;
    const at = time ?? duration * 0.1;
    if (duration && at > duration)
      throw new PluginError(`time ${at} s is past the end of the video (${duration.toFixed(2)} s)`);
    await runFfmpeg({
      // -ss before the input: a fast seek to the keyframe, then decoded up to the moment.
      input,
      inputFormat: format,
      output,
      signal: ctx.signal,
      timeoutMs: ctx.remainingMs(),
      configure: (command) =>
        command.inputOptions('-ss', String(at)).outputOptions('-map', '0:V:0', '-frames:v', '1', '-an', '-sn'),
    });
  } catch (err) {
    throw ffmpegFailure(err, ctx.signal, { label: 'video', paths: [input, output], timeoutMs: ctx.remainingMs() });
  }
  return output;
}

async function officeFirstPage(input: PluginInput, box: number, ctx: RunContext): Promise<string> {
  const inDir = path.join(ctx.workDir, 'in');
  await mkdir(inDir, { recursive: true });
  // A fixed name: soffice names its output after the input.
  const source = path.join(inDir, `input.${input.format}`);
  await copyFile(input.path, source);
  const pdf = await convertDocument(
    {
      input: source,
      convertTo: `pdf:${OFFICE_EXPORT[input.format]}`,
      outDir: path.join(ctx.workDir, 'out'),
      profileDir: path.join(ctx.workDir, 'lo-profile'),
      summary: 'Could not render this document',
      inputLabel: input.format.toUpperCase(),
    },
    ctx,
  );
  return pdfPage(pdf, 1, box, ctx);
}

export async function thumbnail(
  inputs: readonly PluginInput[],
  options: ThumbnailOptions,
  ctx: RunContext,
): Promise<FileResult> {
  const input = singleInput(inputs);
  const target = ctx.target === 'jpeg' ? 'jpg' : ctx.target;
  if (!isOneOf(THUMBNAIL_OUTPUTS, target)) throw new PluginError(`A thumbnail is png, webp or jpg, not ${ctx.target}`);
  const width = options.width ?? (options.height === undefined ? DEFAULT_WIDTH : undefined);
  const height = options.height;
  const box = Math.max(width ?? 0, height ?? 0);
  ctx.progress(5);
  let picture: string;
  if (input.format === 'pdf') picture = await pdfPage(input.path, options.page, box, ctx);
  else if (isOneOf(VIDEO_INPUTS, input.format)) picture = await videoFrame(input.path, input.format, options.time, ctx);
  else if (OFFICE_EXPORT[input.format]) picture = await officeFirstPage(input, box, ctx);
  else picture = input.path;
  ctx.progress(80);
  const output = path.join(ctx.workDir, `thumbnail.${target}`);
  // Flattened on white: PDF pages and JPG have no transparency to keep.
  let image = sharp(picture, { limitInputPixels: 268_402_689, animated: false }).rotate();
  image = image.resize({
    ...(width ? { width } : {}),
    ...(height ? { height } : {}),
    fit: options.fit,
    withoutEnlargement: false,
    background: '#ffffff',
  });
  if (target === 'jpg')
    image = image.flatten({ background: '#ffffff' }).jpeg({ quality: options.quality, mozjpeg: true });
  else if (target === 'webp') image = image.webp({ quality: options.quality });
  else image = image.png();
  try {
    await image.toFile(output);
  } catch (err) {
    // sharp's words are libvips', librsvg's or libxml's internals (parse offsets, error domains): the log has them.
    const label = input.format.toUpperCase();
    if ((err as Error)?.message?.startsWith('timeout'))
      throw new PluginError('Making the thumbnail took too long and was stopped', { cause: err });
    throw new PluginError(`The ${label} image could not be read: the file is damaged or not a valid ${label}`, {
      cause: err,
    });
  }
  ctx.signal.throwIfAborted();
  return { path: output, format: target };
}
