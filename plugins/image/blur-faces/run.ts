/** blur-faces' run: BlazeFace over a pyramid, then a mosaic over each padded face box. */
import sharp from 'sharp';
import { singleInput, type FileResult, type PluginInput, type RunContext } from '../../../core/contract/index.js';
import type { FaceBox } from '../shared/blazeface.js';
import { openImage, rethrowAsPluginError, writePngOutput } from '../shared/engine.js';

/** Longest side of the copy faces are looked for in. */
export const DETECT_MAX_SIDE = 1024;
/** Margin added on every side of a face box, as a fraction of its size (hair, ears, chin). */
const MARGIN = 0.25;
/** Mosaic blocks across a padded face box. */
const BLOCKS_ACROSS = 5;

export interface Pixels {
  width: number;
  height: number;
  channels: number;
  data: Buffer;
}

/** Faces in `pixels` (any channel count; alpha ignored), in its pixel coordinates. */
export async function findFaces(pixels: Pixels, signal?: AbortSignal): Promise<FaceBox[]> {
  const { detectFaces } = await import('../shared/blazeface.js');
  const scale = Math.min(1, DETECT_MAX_SIDE / Math.max(pixels.width, pixels.height));
  const width = Math.max(1, Math.round(pixels.width * scale));
  const height = Math.max(1, Math.round(pixels.height * scale));
  const rgb = await sharp(pixels.data, {
    raw: { width: pixels.width, height: pixels.height, channels: pixels.channels as 1 | 2 | 3 | 4 },
  })
    .removeAlpha()
    .toColourspace('srgb')
    .resize(width, height, { kernel: 'cubic', fit: 'fill' })
    .raw()
    .toBuffer();
  const faces = await detectFaces({ width, height, rgb }, signal ? { signal } : {});
  return faces.map((f) => ({ ...f, x: f.x / scale, y: f.y / scale, width: f.width / scale, height: f.height / scale }));
}

/** Replace each box (padded by MARGIN) with a mosaic of block averages, in place; alpha is left as it is. */
export function mosaic(pixels: Pixels, boxes: readonly FaceBox[]): void {
  const { width, height, channels, data } = pixels;
  const colourChannels = channels === 2 || channels === 4 ? channels - 1 : channels;
  for (const box of boxes) {
    const size = Math.max(box.width, box.height);
    const x0 = Math.max(0, Math.floor(box.x - box.width * MARGIN));
    const y0 = Math.max(0, Math.floor(box.y - box.height * MARGIN));
    const x1 = Math.min(width, Math.ceil(box.x + box.width * (1 + MARGIN)));
    const y1 = Math.min(height, Math.ceil(box.y + box.height * (1 + MARGIN)));
    const block = Math.max(2, Math.round((size * (1 + 2 * MARGIN)) / BLOCKS_ACROSS));
    for (let by = y0; by < y1; by += block) {
      for (let bx = x0; bx < x1; bx += block) {
        const ex = Math.min(x1, bx + block);
        const ey = Math.min(y1, by + block);
        const sums = new Array<number>(colourChannels).fill(0);
        for (let y = by; y < ey; y++)
          for (let x = bx; x < ex; x++)
            for (let c = 0; c < colourChannels; c++) sums[c]! += data[(y * width + x) * channels + c]!;
        const count = (ex - bx) * (ey - by);
        for (let y = by; y < ey; y++)
          for (let x = bx; x < ex; x++)
            for (let c = 0; c < colourChannels; c++)
              data[(y * width + x) * channels + c] = Math.round(sums[c]! / count);
      }
    }
  }
}

export async function blurFaces(inputs: readonly PluginInput[], ctx: RunContext): Promise<FileResult> {
  const input = singleInput(inputs);
  const { image } = await openImage(input, ctx, { animated: false });
  const { data, info } = await image.raw().toBuffer({ resolveWithObject: true }).catch(rethrowAsPluginError);
  const pixels: Pixels = { width: info.width, height: info.height, channels: info.channels, data };
  ctx.progress(10);
  const faces = await findFaces(pixels, ctx.signal);
  ctx.signal.throwIfAborted();
  ctx.progress(80);
  mosaic(pixels, faces);
  const result = await writePngOutput(
    sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } }),
    ctx,
  );
  ctx.report({ detected: faces.length });
  return result;
}
