/**
 * BMP test files in the 8 variants a decoder must get right, written byte by byte from known
 * pixels (the reference decode): 1-, 4- and 8-bit palettes, RLE8, 16-bit 5-6-5 bitfields,
 * 24-bit bottom-up and top-down, and 32-bit BGRA with a v5 header and varying alpha. Widths are
 * odd so every row needs padding.
 */

export interface BmpVariant {
  name: string;
  bytes: Buffer;
  width: number;
  height: number;
  /** The pixels a correct decoder yields, RGBA, rows top-down. */
  rgba: Buffer;
}

type Rgba = [number, number, number, number];

const WIDTH = 13;
const HEIGHT = 7;

/** A 5- or 6-bit sample expanded to 8 bits by bit replication (as libpng and ImageMagick do): 0 -> 0, max -> 255. */
const expand = (value: number, bits: number) => (value << (8 - bits)) | (value >> (2 * bits - 8));

function header(fileSize: number, dataOffset: number): Buffer {
  const head = Buffer.alloc(14);
  head.write('BM', 0, 'latin1');
  head.writeUInt32LE(fileSize, 2);
  head.writeUInt32LE(dataOffset, 10);
  return head;
}

/** BITMAPINFOHEADER (40 bytes), or a v5 header (124 bytes) with channel masks. */
function infoHeader({
  width,
  height,
  bpp,
  compression,
  colours,
  dataSize,
  v5,
}: {
  width: number;
  height: number;
  bpp: number;
  compression: number;
  colours: number;
  dataSize: number;
  v5?: number[];
}): Buffer {
  const size = v5 ? 124 : 40;
  const info = Buffer.alloc(size);
  info.writeUInt32LE(size, 0);
  info.writeInt32LE(width, 4);
  info.writeInt32LE(height, 8);
  info.writeUInt16LE(1, 12);
  info.writeUInt16LE(bpp, 14);
  info.writeUInt32LE(compression, 16);
  info.writeUInt32LE(dataSize, 20);
  info.writeInt32LE(2835, 24);
  info.writeInt32LE(2835, 28);
  info.writeUInt32LE(colours, 32);
  if (v5) {
    for (const [i, mask] of v5.entries()) info.writeUInt32LE(mask >>> 0, 40 + i * 4);
    info.write('BGRs', 56, 'latin1'); // LCS_sRGB, stored little-endian as 'sRGB'
    info.writeUInt32LE(4, 108); // LCS_GM_IMAGES
  }
  return info;
}

function assemble(info: Buffer, palette: Buffer, data: Buffer): Buffer {
  const offset = 14 + info.length + palette.length;
  return Buffer.concat([header(offset + data.length, offset), info, palette, data]);
}

function paletteBytes(colours: Rgba[]): Buffer {
  return Buffer.from(colours.flatMap(([r, g, b]) => [b, g, r, 0]));
}

/** Rows of packed samples, bottom-up unless topDown, each padded to 4 bytes. */
function packRows(height: number, rowBytes: (y: number) => number[], topDown = false): Buffer {
  const rows: Buffer[] = [];
  for (let i = 0; i < height; i++) {
    const y = topDown ? i : height - 1 - i;
    const row = rowBytes(y);
    rows.push(Buffer.concat([Buffer.from(row), Buffer.alloc((4 - (row.length % 4)) % 4)]));
  }
  return Buffer.concat(rows);
}

function rgbaOf(width: number, height: number, pixel: (x: number, y: number) => Rgba): Buffer {
  const out = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) out.set(pixel(x, y), (y * width + x) * 4);
  return out;
}

/** A palette of `count` distinct colours. */
function makePalette(count: number): Rgba[] {
  return Array.from(
    { length: count },
    (_, i) => [(i * 97 + 13) % 256, (i * 53 + 101) % 256, (i * 29 + 200) % 256, 255] as Rgba,
  );
}

function paletted(name: string, bpp: 1 | 4 | 8): BmpVariant {
  const palette = makePalette(1 << bpp);
  const index = (x: number, y: number) => (x * 7 + y * 3 + x * y) % palette.length;
  const data = packRows(HEIGHT, (y) => {
    const bytes: number[] = [];
    const perByte = 8 / bpp;
    for (let x = 0; x < WIDTH; x += perByte) {
      let byte = 0;
      for (let k = 0; k < perByte; k++) byte |= (x + k < WIDTH ? index(x + k, y) : 0) << (8 - bpp * (k + 1));
      bytes.push(byte);
    }
    return bytes;
  });
  const info = infoHeader({
    width: WIDTH,
    height: HEIGHT,
    bpp,
    compression: 0,
    colours: palette.length,
    dataSize: data.length,
  });
  return {
    name,
    bytes: assemble(info, paletteBytes(palette), data),
    width: WIDTH,
    height: HEIGHT,
    rgba: rgbaOf(WIDTH, HEIGHT, (x, y) => palette[index(x, y)]!),
  };
}

/** RLE8: runs of one index and absolute (literal) runs, an end-of-line per row and end-of-bitmap. */
function rle8(): BmpVariant {
  const palette = makePalette(256);
  // Each row: a run of 5, a literal run of 4 distinct indices, a run of 4.
  const index = (x: number, y: number) => (x < 5 ? 10 + y : x < 9 ? 100 + x * 3 + y : 200 + y);
  const data: number[] = [];
  for (let y = HEIGHT - 1; y >= 0; y--) {
    data.push(5, index(0, y));
    data.push(0, 4, index(5, y), index(6, y), index(7, y), index(8, y)); // absolute run, already even-length
    data.push(4, index(9, y));
    data.push(0, 0); // end of line
  }
  data.push(0, 1); // end of bitmap
  const bytes = Buffer.from(data);
  const info = infoHeader({
    width: WIDTH,
    height: HEIGHT,
    bpp: 8,
    compression: 1,
    colours: 256,
    dataSize: bytes.length,
  });
  return {
    name: 'RLE8',
    bytes: assemble(info, paletteBytes(palette), bytes),
    width: WIDTH,
    height: HEIGHT,
    rgba: rgbaOf(WIDTH, HEIGHT, (x, y) => palette[index(x, y)]!),
  };
}

function bitfields565(): BmpVariant {
  const sample = (x: number, y: number): [number, number, number] => [
    (x * 5 + y) % 32,
    (x * 3 + y * 9) % 64,
    (x + y * 4) % 32,
  ];
  const data = packRows(HEIGHT, (y) =>
    Array.from({ length: WIDTH }, (_, x) => {
      const [r, g, b] = sample(x, y);
      const word = (r << 11) | (g << 5) | b;
      return [word & 0xff, word >> 8];
    }).flat(),
  );
  const masks = Buffer.alloc(12);
  for (const [i, mask] of [0xf800, 0x07e0, 0x001f].entries()) masks.writeUInt32LE(mask, i * 4);
  const info = infoHeader({ width: WIDTH, height: HEIGHT, bpp: 16, compression: 3, colours: 0, dataSize: data.length });
  return {
    name: '16-bit 5-6-5 bitfields',
    bytes: assemble(info, masks, data),
    width: WIDTH,
    height: HEIGHT,
    rgba: rgbaOf(WIDTH, HEIGHT, (x, y) => {
      const [r, g, b] = sample(x, y);
      return [expand(r, 5), expand(g, 6), expand(b, 5), 255];
    }),
  };
}

const truePixel = (x: number, y: number): Rgba => [
  (x * 19 + y * 7) % 256,
  (x * 11 + y * 31 + 40) % 256,
  (x * y * 5 + 90) % 256,
  255,
];

function truecolour24(topDown: boolean): BmpVariant {
  const data = packRows(
    HEIGHT,
    (y) => Array.from({ length: WIDTH }, (_, x) => truePixel(x, y)).flatMap(([r, g, b]) => [b, g, r]),
    topDown,
  );
  const info = infoHeader({
    width: WIDTH,
    height: topDown ? -HEIGHT : HEIGHT,
    bpp: 24,
    compression: 0,
    colours: 0,
    dataSize: data.length,
  });
  return {
    name: topDown ? '24-bit top-down' : '24-bit',
    bytes: assemble(info, Buffer.alloc(0), data),
    width: WIDTH,
    height: HEIGHT,
    rgba: rgbaOf(WIDTH, HEIGHT, truePixel),
  };
}

function bgra32(): BmpVariant {
  // Fully opaque, fully transparent and partial alpha; colours of transparent pixels are kept (not premultiplied).
  const pixel = (x: number, y: number): Rgba => {
    const [r, g, b] = truePixel(x, y);
    return [r, g, b, x === 0 ? 0 : x === 1 ? 255 : (x * 37 + y * 13) % 256];
  };
  const data = packRows(HEIGHT, (y) =>
    Array.from({ length: WIDTH }, (_, x) => pixel(x, y)).flatMap(([r, g, b, a]) => [b, g, r, a]),
  );
  const info = infoHeader({
    width: WIDTH,
    height: HEIGHT,
    bpp: 32,
    compression: 3,
    colours: 0,
    dataSize: data.length,
    v5: [0x00ff0000, 0x0000ff00, 0x000000ff, 0xff000000],
  });
  return {
    name: '32-bit BGRA (v5 header)',
    bytes: assemble(info, Buffer.alloc(0), data),
    width: WIDTH,
    height: HEIGHT,
    rgba: rgbaOf(WIDTH, HEIGHT, pixel),
  };
}

/** The 8 variants. */
export function bmpVariants(): BmpVariant[] {
  return [
    paletted('1-bit palette', 1),
    paletted('4-bit palette', 4),
    paletted('8-bit palette', 8),
    rle8(),
    bitfields565(),
    truecolour24(false),
    truecolour24(true),
    bgra32(),
  ];
}

/** Any decoded raw image (1-4 channels) as RGBA, for comparing with a variant's `rgba`. */
export function toRgba(pixels: Buffer, channels: number): Buffer {
  if (channels === 4) return pixels;
  const count = pixels.length / channels;
  const out = Buffer.alloc(count * 4);
  for (let i = 0; i < count; i++) {
    const p = pixels.subarray(i * channels, (i + 1) * channels);
    const [r, g, b] = channels >= 3 ? [p[0]!, p[1]!, p[2]!] : [p[0]!, p[0]!, p[0]!];
    out.set([r, g, b, channels === 2 || channels === 4 ? p[channels - 1]! : 255], i * 4);
  }
  return out;
}
