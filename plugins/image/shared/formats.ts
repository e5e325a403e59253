/** The formats of the image family and what reading them needs (light: the manifests import it). */
import { IMAGEMAGICK } from '../../../core/engines/imagemagick.js';
import type { FormatId } from '../../../schema/index.js';

/** Raster formats sharp reads and writes, with animation where the format has it. */
export const RASTER_FORMATS = [
  'png',
  'jpg',
  'jpeg',
  'webp',
  'avif',
  'gif',
  'tiff',
] as const satisfies readonly FormatId[];
const ANIMATED_FORMATS: ReadonlySet<FormatId> = new Set(['gif', 'webp']);
/** Read through libheif in WASM (see heif.ts); sharp's own libheif decodes only AVIF. */
export const HEIF_FORMATS: ReadonlySet<FormatId> = new Set(['heic', 'heif']);
/** Read through ImageMagick (core/engines/imagemagick.ts): sharp has no BMP decoder. */
export const MAGICK_FORMATS = ['bmp'] as const satisfies readonly FormatId[];

/** Every format the family reads. */
export const IMAGE_INPUTS = [
  ...RASTER_FORMATS,
  'svg',
  'heic',
  'heif',
  ...MAGICK_FORMATS,
] as const satisfies readonly FormatId[];
/** The engines a plugin taking IMAGE_INPUTS needs: ImageMagick decodes BMP. */
export const IMAGE_INPUT_ENGINES = [IMAGEMAGICK];

/** The in-place tools' inputs (resize and the colour filters): every raster format sharp writes. */
export const EDITABLE_FORMATS = [
  'jpg',
  'jpeg',
  'png',
  'webp',
  'gif',
  'tiff',
  'avif',
] as const satisfies readonly FormatId[];

export function hasAlphaChannel(format: FormatId): boolean {
  return format !== 'jpg' && format !== 'jpeg';
}

/** Whether frames survive `from` -> `to` (GIF and WebP in and out). */
export function keepsAnimation(from: FormatId, to: FormatId): boolean {
  return ANIMATED_FORMATS.has(from) && ANIMATED_FORMATS.has(to);
}
