/**
 * An image (PNG, JPEG, TIFF, WebP) as pages for the PDF -> Markdown engine: each page (a TIFF may
 * hold several) is decoded to grey by sharp and becomes a page with no text layer, so the engine
 * OCRs it (tesseract, ocr.ts) and finds its structure exactly as it does a scanned PDF's. The
 * page's size in points follows the image's resolution, so boxes are in points like a PDF's.
 */
import sharp from 'sharp';
import { PluginError } from '../../../core/contract/index.js';
import { MAX_MARKDOWN_PAGES } from './family.js';
import type { OcrImageInput } from './image-family.js';
import type { PageContent } from './engine/types.js';

/** What sharp's metadata reports for a genuine file of each format. */
const SHARP_FORMAT: Record<OcrImageInput, string> = {
  png: 'png',
  jpg: 'jpeg',
  jpeg: 'jpeg',
  tiff: 'tiff',
  webp: 'webp',
};

/** Decoded pixels one page may have (a 600 dpi A3 scan is about 70 million): a guard against decompression bombs. */
export const MAX_PAGE_MEGAPIXELS = 100;

/**
 * A resolution of 72 or 96 dpi is what most writers put in when they know none (screenshots, phone
 * photos, PNGs from scanners that drop it). An image larger than a page at that resolution is read
 * as a page this tall, so a 300 dpi scan that says 72 is still a letter or A4 page to OCR.
 */
const UNKNOWN_RESOLUTION_DPI = 96;
const PAGE_HEIGHT_INCHES = 11;

function resolutionDpi(density: number | undefined, width: number, height: number): number {
  if (density && density > UNKNOWN_RESOLUTION_DPI && density <= 2400) return density;
  return Math.max(density && density >= 72 ? density : 72, Math.max(width, height) / PAGE_HEIGHT_INCHES);
}

const label = (format: OcrImageInput) => (format === 'jpg' ? 'JPEG' : format.toUpperCase());

/** Every page of the image, grey, sized in points, each a scan for the engine to OCR. */
export async function imagePages(file: string, format: OcrImageInput, signal: AbortSignal): Promise<PageContent[]> {
  const unreadable = `The file is not a readable ${label(format)} image`;
  const header = await sharp(file, { limitInputPixels: false })
    .metadata()
    .catch((cause: unknown) => {
      throw new PluginError(unreadable, { cause });
    });
  if (header.format !== SHARP_FORMAT[format])
    throw new PluginError(`The file is not a ${label(format)} image (its content is ${header.format.toUpperCase()})`);
  // A TIFF's pages are pages; an animated WebP's frames are not (its first frame is read).
  const count = format === 'tiff' ? (header.pages ?? 1) : 1;
  if (count > MAX_MARKDOWN_PAGES)
    throw new PluginError(`The image has ${count} pages; at most ${MAX_MARKDOWN_PAGES} are read in one job`);
  const pages: PageContent[] = [];
  for (let page = 0; page < count; page++) {
    signal.throwIfAborted();
    const { data, info } = await sharp(file, {
      page,
      autoOrient: true,
      failOn: 'error',
      limitInputPixels: MAX_PAGE_MEGAPIXELS * 1_000_000,
    })
      // Transparent pixels are paper: text on a transparent PNG must not vanish into black.
      .flatten({ background: '#ffffff' })
      .toColourspace('b-w')
      .raw()
      .toBuffer({ resolveWithObject: true })
      .catch((cause: unknown) => {
        const tooLarge = /pixel limit/i.test(String((cause as Error)?.message));
        throw new PluginError(
          tooLarge ? `The image is larger than ${MAX_PAGE_MEGAPIXELS} megapixels a page` : unreadable,
          { cause },
        );
      });
    const gray = info.channels === 1 ? new Uint8Array(data) : everyNth(data, info.channels);
    const dpi = resolutionDpi(header.density, info.width, info.height);
    const [width, height] = [(info.width * 72) / dpi, (info.height * 72) / dpi];
    pages.push({
      number: page + 1,
      width,
      height,
      runs: [],
      rules: [],
      // The image's unit square onto the page, y downwards (its top row at the top of the page).
      scan: { width: info.width, height: info.height, gray, transform: [width, 0, 0, -height, 0, height] },
    });
  }
  return pages;
}

function everyNth(data: Buffer, step: number): Uint8Array {
  const out = new Uint8Array(Math.floor(data.length / step));
  for (let i = 0; i < out.length; i++) out[i] = data[i * step]!;
  return out;
}
