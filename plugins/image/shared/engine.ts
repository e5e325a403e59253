/**
 * The one module of the image family that talks to sharp: opening an input safely (format
 * check, pixel limit, timeout), encoding to an output format, and turning sharp's errors into
 * messages a client can act on. Every image plugin opens its input through `openImage`.
 */
import { copyFile, open, readFile, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp, { type Metadata, type Sharp, type SharpOptions } from 'sharp';
import { PluginError, type FileResult, type PluginInput, type RunContext } from '../../../core/contract/index.js';
import { byteOrderMark, toUtf8 } from '../../../core/contract/text.js';
import { bmpDimensions, decodeToRaw } from '../../../core/engines/imagemagick.js';
import { FORMATS, type FormatId } from '../../../schema/index.js';
import { IMAGE_RUNS_AT_ONCE } from './family.js';
import { HEIF_FORMATS } from './formats.js';
import { decodeHeif } from './heif.js';
import { heifProfile, withPngProfile } from './heif-profile.js';
import { MAX_INPUT_MEGAPIXELS } from './megapixels.js';

const MAX_INPUT_PIXELS = MAX_INPUT_MEGAPIXELS * 1_000_000;

// Every job reads a different file once, so libvips' operation cache only holds memory and
// file handles. Two concurrent runs on a small machine should split the cores, not each take all.
sharp.cache(false);
sharp.concurrency(Math.max(1, Math.floor(os.availableParallelism() / IMAGE_RUNS_AT_ONCE)));

/** What sharp's metadata reports for a genuine file of each format we read. */
const SHARP_FORMAT: Partial<Record<FormatId, string>> = {
  png: 'png',
  jpg: 'jpeg',
  jpeg: 'jpeg',
  webp: 'webp',
  avif: 'heif',
  gif: 'gif',
  tiff: 'tiff',
  svg: 'svg',
};

export interface EncodeSettings {
  /** Lossy encoders only (jpg, webp, avif); 10-95. */
  quality: number;
  /** Spend more effort on size: PNG becomes palette-quantised at `quality`. */
  smallest?: boolean;
}

export interface ImageJob {
  /** Output format; the input's own format for in-place tools. */
  to: FormatId;
  encode: EncodeSettings;
  /** The plugin's own steps between decoding and encoding. */
  edit?: (image: Sharp) => Sharp;
  /** Keep every frame of a GIF/WebP (when the output can hold them too). */
  animated: boolean;
}

/**
 * Open an input for decoding after checking it is what it claims to be and not a
 * decompression bomb. The header is read first, without the pixel limit, so the refusal can say
 * how large the image is.
 */
export async function openImage(
  input: PluginInput,
  ctx: RunContext,
  { animated }: { animated: boolean },
): Promise<{ image: Sharp; header: Metadata }> {
  ctx.signal.throwIfAborted();
  if (HEIF_FORMATS.has(input.format)) return openHeif(input, ctx);
  if (input.format === 'bmp') return openBmp(input, ctx);
  // SVG from a buffer has no base URL, so librsvg cannot follow references to files beside it
  // (other uploads in the same directory).
  const source = input.format === 'svg' ? svgAsUtf8(await readFile(input.path)) : input.path;
  const options: SharpOptions = { animated, autoOrient: true, failOn: 'error' };
  const header = await sharp(source, { ...options, limitInputPixels: false })
    .metadata()
    .catch((cause: unknown) => {
      throw new PluginError(`The file is not a readable ${label(input.format)} image`, { cause });
    });
  if (header.format !== SHARP_FORMAT[input.format]) {
    throw new PluginError(
      `The file is not a ${label(input.format)} image (its content is ${header.format.toUpperCase()})`,
    );
  }
  if (header.width * header.height > MAX_INPUT_PIXELS) throw tooLarge(header.width * header.height);
  const image = sharp(source, { ...options, limitInputPixels: MAX_INPUT_PIXELS }).timeout({
    seconds: timeoutSeconds(ctx),
  });
  return { image, header };
}

/**
 * librsvg reads UTF-8 only: an SVG in UTF-16 (which its BOM announces) is transcoded and its XML
 * declaration made to say so; a UTF-8 BOM is dropped.
 */
function svgAsUtf8(bytes: Buffer): Buffer {
  if (!byteOrderMark(bytes)) return bytes;
  const text = toUtf8(bytes).toString('utf8');
  return Buffer.from(text.replace(/^(<\?xml\s[^>]*?\bencoding\s*=\s*)(["'])[^"']*\2/, '$1$2UTF-8$2'), 'utf8');
}

/** HEIC/HEIF are decoded outside sharp, then handed to it as raw pixels (first image only). */
async function openHeif(input: PluginInput, ctx: RunContext): Promise<{ image: Sharp; header: Metadata }> {
  const file = await readFile(input.path);
  const decoded = await decodeHeif(file, {
    signal: ctx.signal,
    maxPixels: MAX_INPUT_PIXELS,
    timeoutMs: ctx.remainingMs(),
  }).catch((cause: unknown) => {
    if (ctx.signal.aborted) throw cause;
    if (cause instanceof Error && cause.message.startsWith('timeout')) rethrowAsPluginError(cause);
    throw new PluginError(`The file is not a readable ${label(input.format)} image`, { cause });
  });
  if (decoded.kind === 'too-large') throw tooLarge(decoded.pixels);
  const { width, height } = decoded;
  // The decoder always gives RGBA; an alpha channel that is all opaque would only cost bytes.
  const pixels = decoded.opaque
    ? await sharp(decoded.rgba, { raw: { width, height, channels: 4 } })
        .removeAlpha()
        .raw()
        .toBuffer()
    : decoded.rgba;
  const raw = { width, height, channels: decoded.opaque ? (3 as const) : (4 as const) };
  // The decoder drops the colour profile (a phone's Display P3): the pixels go to sharp with it, as a PNG carrying
  // it, so they are read in its colours and converted to sRGB like any other input's.
  const icc = await heifIcc(file);
  const source = icc
    ? withPngProfile(
        await sharp(pixels, { raw }).png({ compressionLevel: 0, adaptiveFiltering: false }).toBuffer(),
        icc,
      )
    : pixels;
  const image = sharp(source, icc ? { limitInputPixels: MAX_INPUT_PIXELS } : { raw }).timeout({
    seconds: timeoutSeconds(ctx),
  });
  return { image, header: await image.metadata() };
}

/** The ICC profile of a HEIF file's primary image, if it has one that is not sRGB's by default. */
async function heifIcc(file: Buffer): Promise<Buffer | undefined> {
  const profile = heifProfile(file);
  if (profile?.kind === 'icc') return profile.icc;
  // Display P3 given by its coded primaries (SMPTE EG 432-1) and the sRGB curve: libvips' own P3 profile.
  if (profile?.kind === 'nclx' && profile.primaries === 12 && profile.transfer === 13) return displayP3Profile();
  return undefined;
}

let displayP3: Promise<Buffer> | undefined;

/** libvips' built-in Display P3 ICC profile (sharp's `p3`). */
function displayP3Profile(): Promise<Buffer> {
  displayP3 ??= sharp({ create: { width: 1, height: 1, channels: 3, background: '#000' } })
    .withIccProfile('p3')
    .png()
    .toBuffer()
    .then(async (png) => (await sharp(png).metadata()).icc!);
  return displayP3;
}

/** BMP is decoded by ImageMagick to raw pixels (first checking the size its header declares), then handed to sharp. */
async function openBmp(input: PluginInput, ctx: RunContext): Promise<{ image: Sharp; header: Metadata }> {
  const unreadable = `The file is not a readable ${label(input.format)} image`;
  const head = Buffer.alloc(32);
  const file = await open(input.path);
  try {
    await file.read(head, 0, head.length, 0);
  } finally {
    await file.close();
  }
  const size = bmpDimensions(head);
  if (!size) throw new PluginError(unreadable);
  if (size.width * size.height > MAX_INPUT_PIXELS) throw tooLarge(size.width * size.height);
  const { width, height, channels, pixels } = await decodeToRaw(input.path, 'bmp', ctx, unreadable);
  const image = sharp(pixels, { raw: { width, height, channels }, limitInputPixels: MAX_INPUT_PIXELS }).timeout({
    seconds: timeoutSeconds(ctx),
  });
  return { image, header: await image.metadata() };
}

function tooLarge(pixels: number): PluginError {
  const megapixels = Math.round(pixels / 100_000) / 10;
  return new PluginError(`Image is too large: ${megapixels} megapixels (limit ${MAX_INPUT_MEGAPIXELS})`);
}

/** Decode, edit and encode one image into the work dir. */
export async function processImage(input: PluginInput, ctx: RunContext, job: ImageJob): Promise<FileResult> {
  const { image } = await openImage(input, ctx, { animated: job.animated });
  ctx.progress(10);
  const output = outputPath(ctx, job.to);
  const edited = job.edit ? job.edit(image) : image;
  await encode(edited, job.to, job.encode).toFile(output).catch(rethrowAsPluginError);
  ctx.signal.throwIfAborted();
  ctx.progress(100);
  return { path: output, format: job.to };
}

/** Like processImage, but the input itself is returned when re-encoding does not make it smaller. */
export async function processImageNoLarger(input: PluginInput, ctx: RunContext, job: ImageJob): Promise<FileResult> {
  const result = await processImage(input, ctx, job);
  if ((await stat(result.path)).size >= input.bytes) {
    ctx.log.debug('re-encoded image is not smaller; returning the input unchanged', { bytes: input.bytes });
    await copyFile(input.path, result.path);
  }
  ctx.signal.throwIfAborted();
  return result;
}

export function encode(image: Sharp, format: FormatId, { quality, smallest = false }: EncodeSettings): Sharp {
  switch (format) {
    case 'jpg':
    case 'jpeg':
      // JPEG has no alpha: transparent areas become white rather than black.
      return image.flatten({ background: '#ffffff' }).jpeg({ quality, mozjpeg: true });
    case 'png':
      return smallest
        ? image.png({ palette: true, quality, compressionLevel: 9, effort: 10 })
        : image.png({ compressionLevel: 9 });
    case 'webp':
      return image.webp({ quality, effort: smallest ? 6 : 4 });
    case 'avif':
      return image.avif({ quality });
    case 'gif':
      return image.gif();
    case 'tiff':
      return image.tiff({ compression: 'lzw' });
    default:
      throw new Error(`the image engine cannot write ${format}`);
  }
}

/** Encode `image` (e.g. pixels a plugin edited) as the run's PNG output. */
export async function writePngOutput(image: Sharp, ctx: RunContext): Promise<FileResult> {
  const output = outputPath(ctx, 'png');
  await image.png({ compressionLevel: 9 }).toFile(output).catch(rethrowAsPluginError);
  ctx.signal.throwIfAborted();
  ctx.progress(100);
  return { path: output, format: 'png' };
}

/** A fresh output file name in the work dir with the format's extension. */
export function outputPath(ctx: RunContext, format: FormatId): string {
  return path.join(ctx.workDir, `output.${FORMATS[format].extension}`);
}

/** Whole seconds sharp may spend, from what is left of the run (sharp takes 1-3600). */
function timeoutSeconds(ctx: RunContext): number {
  return Math.min(3600, Math.max(1, Math.floor(ctx.remainingMs() / 1000)));
}

function label(format: FormatId): string {
  return FORMATS[format].extension.toUpperCase();
}

/** sharp's own messages can carry paths; clients get a plain sentence, the log gets the cause. */
export function rethrowAsPluginError(cause: unknown): never {
  if (cause instanceof PluginError) throw cause;
  const message = cause instanceof Error ? cause.message : String(cause);
  if (message.startsWith('timeout')) throw new PluginError('Image processing took too long and was stopped', { cause });
  if (message.includes('pixel limit'))
    throw new PluginError(`Image is too large (limit ${MAX_INPUT_MEGAPIXELS} megapixels)`, { cause });
  throw new PluginError('The image could not be processed: the file is damaged or truncated', { cause });
}
