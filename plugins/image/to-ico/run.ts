import { writeFile } from 'node:fs/promises';
import { singleInput, type FileResult, type PluginInput, type RunContext } from '../../../core/contract/index.js';
import { openImage, outputPath, rethrowAsPluginError } from '../shared/engine.js';

const ICON_SIZES = [16, 24, 32, 48, 64, 128, 256] as const;
const HEADER_BYTES = 6;
const ENTRY_BYTES = 16;

/** ICONDIR, one ICONDIRENTRY per image, then the PNGs. */
function packIco(pngs: ReadonlyArray<{ size: number; png: Buffer }>): Buffer {
  const header = Buffer.alloc(HEADER_BYTES + ENTRY_BYTES * pngs.length);
  header.writeUInt16LE(0, 0);
  header.writeUInt16LE(1, 2); // 1 = icon (2 would be cursor)
  header.writeUInt16LE(pngs.length, 4);
  let offset = header.length;
  pngs.forEach(({ size, png }, i) => {
    const entry = HEADER_BYTES + i * ENTRY_BYTES;
    header.writeUInt8(size % 256, entry); // 0 means 256
    header.writeUInt8(size % 256, entry + 1);
    header.writeUInt16LE(1, entry + 4); // colour planes
    header.writeUInt16LE(32, entry + 6); // bits per pixel
    header.writeUInt32LE(png.length, entry + 8);
    header.writeUInt32LE(offset, entry + 12);
    offset += png.length;
  });
  return Buffer.concat([header, ...pngs.map(({ png }) => png)]);
}

export async function imageToIco(inputs: readonly PluginInput[], ctx: RunContext): Promise<FileResult> {
  const input = singleInput(inputs);
  const { image, header } = await openImage(input, ctx, { animated: false });
  const largest = Math.max(header.width, header.height);
  // Upscaled icons look blurred: only sizes the picture has pixels for, and at least the smallest.
  const sizes = ICON_SIZES.filter((size) => size <= largest);
  const pngs = await Promise.all(
    (sizes.length ? sizes : [ICON_SIZES[0]]).map(async (size) => ({
      size,
      png: await image
        .clone()
        .resize({ width: size, height: size, fit: 'contain', background: { r: 0, g: 0, b: 0, alpha: 0 } })
        .ensureAlpha()
        .png()
        .toBuffer()
        .catch(rethrowAsPluginError),
    })),
  );
  ctx.signal.throwIfAborted();
  const output = outputPath(ctx, 'ico');
  await writeFile(output, packIco(pngs), { signal: ctx.signal });
  ctx.signal.throwIfAborted();
  ctx.progress(100);
  return { path: output, format: 'ico' };
}
