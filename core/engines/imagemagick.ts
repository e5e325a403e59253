/**
 * ImageMagick: the decoder for image formats sharp cannot read (BMP). It decodes to raw 8-bit
 * pixels in a PAM file in the run's work dir, which the caller hands to sharp as raw input.
 *
 * Why ImageMagick: it decoded every BMP variant we tested exactly (1/4/8-bit palettes, RLE4/RLE8,
 * 16-bit bitfields, 24-bit, top-down, 32-bit BGRA with a v4/v5 header); the pure-JS decoders on
 * npm got 16-bit, 32-bit bitfields or RLE8 wrong. The coder is always named explicitly
 * (`BMP:file`), so a file that only claims to be a BMP never reaches another ImageMagick coder
 * or delegate, and only the first image is read.
 */
import { randomUUID } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PluginError, type EngineRequirement, type RunContext } from '../contract/index.js';
import { engineDetail, isExitFailure, runOptions, withDetail } from './common.js';
import { runProcess } from './process.js';

/** Our policy.xml: every coder refused but BMP in and PAM out; no URL, MSL, TEXT or @-file reads. */
export const IMAGEMAGICK_POLICY_DIR = fileURLToPath(new URL('./imagemagick-policy/', import.meta.url));
/** Every ImageMagick run reads our policy (on top of the system's, which can only refuse more). */
export const magickOptions = () => ({
  env: { ...process.env, MAGICK_CONFIGURE_PATH: IMAGEMAGICK_POLICY_DIR },
  readable: [IMAGEMAGICK_POLICY_DIR],
});

export const IMAGEMAGICK: EngineRequirement = { command: 'convert', debian: 'imagemagick', license: 'ImageMagick' };

/** A decode needs the run's work dir for the decoded pixels. */
export type ImageMagickContext = Pick<RunContext, 'signal' | 'remainingMs' | 'workDir'>;

/** Formats ImageMagick decodes for us, by its coder name. */
export type MagickInput = 'bmp';
const CODER: Record<MagickInput, string> = { bmp: 'BMP' };

/**
 * Decoded pixels: 8 bits per sample, `channels` samples per pixel (1 grey, 2 grey+alpha, 3 RGB, 4 RGBA), rows top-down.
 */
export interface RawImage {
  width: number;
  height: number;
  channels: 1 | 2 | 3 | 4;
  pixels: Buffer;
}

/**
 * The width and height a BMP header declares, read before decoding (decompression-bomb checks); null when it is no BMP
 * header.
 */
export function bmpDimensions(head: Buffer): { width: number; height: number } | null {
  if (head.length < 26 || head.toString('latin1', 0, 2) !== 'BM') return null;
  const headerSize = head.readUInt32LE(14);
  // BITMAPCOREHEADER (OS/2 1.x) has 16-bit sizes; every later header 32-bit signed ones (negative height: top-down).
  const [width, height] =
    headerSize === 12
      ? [head.readUInt16LE(18), head.readUInt16LE(20)]
      : [head.readInt32LE(18), Math.abs(head.readInt32LE(22))];
  if (headerSize < 12 || width <= 0 || height <= 0) return null;
  return { width, height };
}

/**
 * ImageMagick failures as client messages: `summary` with ImageMagick's own words ("improper
 * image header", "insufficient image data in file"). Aborts, timeouts and a missing ImageMagick
 * pass through.
 */
export function imageMagickFailure(err: unknown, signal: AbortSignal, summary: string): unknown {
  if (!isExitFailure(err, signal)) return err;
  // "convert: improper image header `in.bmp' @ error/bmp.c/ReadBMPImage/634." -> "improper image header"
  const first = err.stderrTail.split(/\r?\n/).find((line) => line.trim()) ?? '';
  const detail = engineDetail(first.replace(/\s*`[^`']*'\s*@.*$/, '').replace(/\s*@ (?:error|warning)\/.*$/, ''));
  return new PluginError(withDetail(summary, detail), { cause: err });
}

/**
 * Decode the first image of `file` (read as `format` whatever its content) to raw 8-bit pixels.
 * A file ImageMagick cannot read becomes a PluginError starting with `summary`.
 */
export async function decodeToRaw(
  file: string,
  format: MagickInput,
  ctx: ImageMagickContext,
  summary: string,
): Promise<RawImage> {
  ctx.signal.throwIfAborted();
  const output = path.join(ctx.workDir, `decoded-${randomUUID()}.pam`);
  try {
    await runProcess(
      IMAGEMAGICK.command,
      [`${CODER[format]}:${file}[0]`, '-depth', '8', `PAM:${output}`],
      runOptions(ctx, { ...magickOptions(), captureStdout: false }),
    ).catch((err: unknown) => {
      throw imageMagickFailure(err, ctx.signal, summary);
    });
    return parsePam(await readFile(output), summary);
  } finally {
    await rm(output, { force: true });
  }
}

/** A PAM file (netpbm P7) as written by ImageMagick with `-depth 8`. */
export function parsePam(bytes: Buffer, summary: string): RawImage {
  const end = bytes.indexOf('ENDHDR\n');
  if (bytes.toString('latin1', 0, 3) !== 'P7\n' || end < 0) throw new PluginError(summary);
  const fields = new Map<string, string>();
  for (const line of bytes.toString('latin1', 3, end).split('\n')) {
    const [key, ...value] = line.trim().split(/\s+/);
    if (key && !key.startsWith('#')) fields.set(key, value.join(' '));
  }
  const width = Number(fields.get('WIDTH'));
  const height = Number(fields.get('HEIGHT'));
  const channels = Number(fields.get('DEPTH'));
  const pixels = bytes.subarray(end + 'ENDHDR\n'.length);
  if (
    fields.get('MAXVAL') !== '255' ||
    !(channels >= 1 && channels <= 4) ||
    !(width > 0 && height > 0) ||
    pixels.length !== width * height * channels
  ) {
    throw new PluginError(summary);
  }
  return { width, height, channels: channels as RawImage['channels'], pixels };
}
