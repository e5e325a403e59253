/**
 * Sample images for the image family's tests, built with sharp in a temp dir: solid colours,
 * a photo-like gradient, EXIF/GPS/XMP-laden files, animations, SVG, and hostile inputs.
 * Paths are known before the files exist, so conformance samples can name them at collection.
 */
import { mkdtempSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import sharp, { type Colour } from 'sharp';
import { isFileResult, type RunResult } from '../../../core/contract/index.js';
import { commandExists, runProcess } from '../../../core/engines/process.js';
import type { FormatId } from '../../../schema/index.js';

export const RED = { r: 255, g: 0, b: 0 };
const XMP_PACKET =
  '<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/">' +
  '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" ' +
  'xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:creator><rdf:Seq><rdf:li>Jane Secret</rdf:li></rdf:Seq>' +
  '</dc:creator></rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end="w"?>';
const EXIF = {
  IFD0: { Make: 'Acme', Model: 'Spy 1', Artist: 'Jane Secret' },
  // libvips calls the GPS directory IFD3.
  IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '48/1 51/1 24/1', GPSLongitudeRef: 'E', GPSLongitude: '2/1 21/1 7/1' },
};
const FRAME_COLOURS = ['red', 'lime', 'blue'];
/** HEIC samples need an HEVC encoder: heif-enc (Debian libheif-examples); their tests skip without it. */
export const canMakeHeic = await commandExists('heif-enc');

export interface Sample {
  path: string;
  format: FormatId;
}

/** A fixture file: where it will be and what the client would declare it as. */
function sample(dir: string, name: string, format: FormatId): Sample {
  return { path: path.join(dir, name), format };
}

export function imageFixtures() {
  // A fresh directory per test file: vitest runs files in parallel.
  const dir = mkdtempSync(path.join(os.tmpdir(), 'image-fixtures-'));
  const at = (name: string, format: FormatId) => sample(dir, name, format);
  const files = {
    /** 64x48 opaque red. */
    redPng: at('red.png', 'png'),
    redJpg: at('red.jpg', 'jpg'),
    redJpeg: at('red.jpeg', 'jpeg'),
    redWebp: at('red.webp', 'webp'),
    redAvif: at('red.avif', 'avif'),
    redGif: at('red.gif', 'gif'),
    redTiff: at('red.tiff', 'tiff'),
    /** 64x48 red HEIC, encoded by heif-enc (only when canMakeHeic). */
    redHeic: at('red.heic', 'heic'),
    /** 64x48 transparent, with an opaque red 16x16 square in the middle. */
    transparentPng: at('transparent.png', 'png'),
    /** 80x60 green, declared 80x60 pixels. */
    greenSvg: at('green.svg', 'svg'),
    /** 320x240 gradient with noise: compresses like a photo. */
    photoPng: at('photo.png', 'png'),
    photoJpg: at('photo.jpg', 'jpg'),
    photoWebp: at('photo.webp', 'webp'),
    /** 40x20 (blue left quarter) with EXIF orientation 6: displayed as 20x40; EXIF, GPS, XMP, ICC. */
    exifJpg: at('exif.jpg', 'jpg'),
    /** PNG with EXIF, GPS, XMP and a tEXt comment chunk. */
    exifPng: at('exif.png', 'png'),
    exifWebp: at('exif.webp', 'webp'),
    /** 3 frames of 40x30: red, lime, blue. */
    animatedGif: at('animated.gif', 'gif'),
    animatedWebp: at('animated.webp', 'webp'),
    /** A PNG header claiming 20000x20000 (400 megapixels). */
    bombPng: at('bomb.png', 'png'),
    garbagePng: at('garbage.png', 'png'),
    truncatedJpg: at('truncated.jpg', 'jpg'),
    /** PNG bytes declared as JPG. */
    pngNamedJpg: at('really-a-png.jpg', 'jpg'),
  } satisfies Record<string, Sample>;

  async function build(): Promise<void> {
    const solid = (width: number, height: number, background: Colour) =>
      sharp({ create: { width, height, channels: 3, background } });
    const red = solid(64, 48, RED);
    await Promise.all([
      red.clone().png().toFile(files.redPng.path),
      red.clone().jpeg({ quality: 95 }).toFile(files.redJpg.path),
      red.clone().jpeg({ quality: 95 }).toFile(files.redJpeg.path),
      red.clone().webp({ quality: 95 }).toFile(files.redWebp.path),
      red.clone().avif({ quality: 80, effort: 0 }).toFile(files.redAvif.path),
      red.clone().gif().toFile(files.redGif.path),
      red.clone().tiff().toFile(files.redTiff.path),
      sharp({ create: { width: 64, height: 48, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
        .composite([{ input: { create: { width: 16, height: 16, channels: 4, background: RED } }, left: 24, top: 16 }])
        .png()
        .toFile(files.transparentPng.path),
      writeFile(
        files.greenSvg.path,
        '<svg xmlns="http://www.w3.org/2000/svg" width="80" height="60"><rect width="100%" height="100%" ' +
          'fill="#00ff00"/></svg>',
      ),
    ]);

    const photo = sharp(gradientPixels(320, 240), { raw: { width: 320, height: 240, channels: 3 } });
    await Promise.all([
      photo.clone().png().toFile(files.photoPng.path),
      photo.clone().jpeg({ quality: 95 }).toFile(files.photoJpg.path),
      photo.clone().webp({ quality: 95 }).toFile(files.photoWebp.path),
    ]);

    const quarterBlue = solid(40, 20, RED).composite([
      { input: { create: { width: 10, height: 20, channels: 3, background: 'blue' } }, left: 0, top: 0 },
    ]);
    const exifPng = await solid(40, 20, RED).png().withExif(EXIF).withXmp(XMP_PACKET).toBuffer();
    await Promise.all([
      // withMetadata keeps the orientation tag and adds an ICC profile.
      quarterBlue
        .jpeg()
        .withMetadata({ orientation: 6 })
        .withExifMerge(EXIF)
        .withXmp(XMP_PACKET)
        .toFile(files.exifJpg.path),
      writeFile(
        files.exifPng.path,
        withPngChunk(exifPng, 'tEXt', Buffer.from('Comment\0taken at home, 12 Secret Street')),
      ),
      solid(40, 20, RED).webp().withExif(EXIF).withXmp(XMP_PACKET).toFile(files.exifWebp.path),
    ]);

    const frames = await Promise.all(FRAME_COLOURS.map((colour) => solid(40, 30, colour).png().toBuffer()));
    const animation = () => sharp(frames, { join: { animated: true } });
    await Promise.all([
      animation()
        .gif({ delay: [100, 100, 100], loop: 0 })
        .toFile(files.animatedGif.path),
      animation()
        .webp({ delay: [100, 100, 100], loop: 0 })
        .toFile(files.animatedWebp.path),
    ]);

    const tinyPng = await solid(1, 1, RED).png().toBuffer();
    const photoJpg = await readFile(files.photoJpg.path);
    await Promise.all([
      writeFile(files.bombPng.path, withPngSize(tinyPng, 20_000, 20_000)),
      writeFile(files.garbagePng.path, Buffer.from('this is not an image at all, just text pretending to be one')),
      writeFile(files.truncatedJpg.path, photoJpg.subarray(0, Math.floor(photoJpg.length / 2))),
      writeFile(files.pngNamedJpg.path, tinyPng),
    ]);
    if (canMakeHeic)
      await runProcess('heif-enc', ['-q', '90', '-o', files.redHeic.path, files.redPng.path], { timeoutMs: 30_000 });
  }

  const cleanup = () => rm(dir, { recursive: true, force: true });
  return { dir, files, build, cleanup };
}

/** RGB gradient with deterministic noise, so lossy encoders have detail to trade. */
function gradientPixels(width: number, height: number): Buffer {
  const pixels = Buffer.alloc(width * height * 3);
  let seed = 42;
  const noise = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return (seed % 41) - 20;
  };
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      pixels[i] = clampByte((x * 255) / width + noise());
      pixels[i + 1] = clampByte((y * 255) / height + noise());
      pixels[i + 2] = clampByte(((x + y) * 255) / (width + height) + noise());
    }
  }
  return pixels;
}

const clampByte = (value: number) => Math.max(0, Math.min(255, Math.round(value)));

function pngChunk(type: string, data: Buffer): Buffer {
  const typeAndData = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typeAndData));
  return Buffer.concat([length, typeAndData, crc]);
}

/** Insert a chunk before IEND (the last 12 bytes of a PNG). */
function withPngChunk(png: Buffer, type: string, data: Buffer): Buffer {
  return Buffer.concat([png.subarray(0, png.length - 12), pngChunk(type, data), png.subarray(png.length - 12)]);
}

/** Rewrite IHDR's width and height (the data of the first chunk, after the 8-byte signature). */
function withPngSize(png: Buffer, width: number, height: number): Buffer {
  const ihdrData = Buffer.from(png.subarray(16, 29));
  ihdrData.writeUInt32BE(width, 0);
  ihdrData.writeUInt32BE(height, 4);
  return Buffer.concat([png.subarray(0, 8), pngChunk('IHDR', ihdrData), png.subarray(33)]);
}

/** RGBA of one pixel of the (first frame of the) image. */
export async function pixelAt(file: string, x: number, y: number): Promise<[number, number, number, number]> {
  const { data, info } = await sharp(file)
    .ensureAlpha()
    .toColourspace('srgb')
    .raw()
    .toBuffer({ resolveWithObject: true });
  const i = (y * info.width + x) * info.channels;
  return [data[i]!, data[i + 1]!, data[i + 2]!, data[i + 3]!];
}

/** Close to within `tolerance` per channel (lossy encoders shift colours a little). */
export function near(actual: readonly number[], expected: readonly number[], tolerance = 12): boolean {
  return expected.every((value, i) => Math.abs((actual[i] ?? NaN) - value) <= tolerance);
}

/** The output file of a file result. */
export function outputOf(result: RunResult): string {
  if (!isFileResult(result)) throw new Error('expected a file result');
  return result.path;
}

/** Format, frame size, frame count and timing, as decoded. */
export async function describeImage(file: string) {
  const meta = await sharp(file, { animated: true }).metadata();
  return {
    format: meta.format,
    width: meta.width,
    height: meta.pageHeight ?? meta.height,
    frames: meta.pages ?? 1,
    delay: meta.delay,
  };
}
