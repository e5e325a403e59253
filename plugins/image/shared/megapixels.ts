/**
 * Decoded size from the file's header alone (image-size, pure JS: no sharp, no decoding), so the
 * API process can measure an image job at acceptance. Animations count their first frame here;
 * the run's decoder counts every frame against the same limit.
 */
import { imageSizeFromFile } from 'image-size/fromFile';

/** Decompression-bomb guard: decoded pixels per input, all frames of an animation counted. */
export const MAX_INPUT_MEGAPIXELS = 100;

/** Megapixels the header declares; undefined when it cannot tell (the run then judges the file). */
export async function headerMegapixels(file: string): Promise<number | undefined> {
  const size = await imageSizeFromFile(file).catch(() => undefined);
  // A GIF's header gives its logical screen, which may be far larger than its frames (libvips sizes
  // the canvas by the frames): the run judges GIFs.
  if (size?.type === 'gif') return undefined;
  if (!size?.width || !size.height) return undefined;
  return (size.width * size.height) / 1_000_000;
}
