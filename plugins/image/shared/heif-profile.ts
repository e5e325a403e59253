/**
 * The colour profile of a HEIF/HEIC file's primary image, read from its container: the WASM decoder hands back
 * pixels only, and a phone's photo is in Display P3, whose numbers read as sRGB look dull and shifted. ISO/IEC
 * 23008-12 keeps it in a `colr` property (ISO/IEC 14496-12 boxes): an ICC profile (`prof`, `rICC`) or coded
 * primaries (`nclx`), tied to items by `ipma`.
 */
import { deflateSync, crc32 } from 'node:zlib';

export type HeifProfile = { kind: 'icc'; icc: Buffer } | { kind: 'nclx'; primaries: number; transfer: number };

interface Box {
  type: string;
  /** The box's content, after its header. */
  body: Buffer;
}

/** The boxes in `data`, in order; stops at the first malformed one. */
function boxes(data: Buffer): Box[] {
  const found: Box[] = [];
  let offset = 0;
  while (offset + 8 <= data.length) {
    let size = data.readUInt32BE(offset);
    const type = data.toString('latin1', offset + 4, offset + 8);
    let header = 8;
    if (size === 1) {
      if (offset + 16 > data.length) break;
      const large = data.readBigUInt64BE(offset + 8);
      if (large > BigInt(data.length)) break;
      size = Number(large);
      header = 16;
    } else if (size === 0) size = data.length - offset;
    if (size < header || offset + size > data.length) break;
    found.push({ type, body: data.subarray(offset + header, offset + size) });
    offset += size;
  }
  return found;
}

const child = (box: Box | undefined, type: string, skip = 0) =>
  box ? boxes(box.body.subarray(skip)).find((b) => b.type === type) : undefined;

/** The `colr` property of the primary item (or, when none is tied to it, the first in the file); undefined if none. */
export function heifProfile(file: Buffer): HeifProfile | undefined {
  // meta, pitm and ipma are full boxes: 4 bytes of version and flags before their content.
  const meta = boxes(file).find((b) => b.type === 'meta');
  const metaChildren = meta ? boxes(meta.body.subarray(4)) : [];
  const iprp = metaChildren.find((b) => b.type === 'iprp');
  const ipco = child(iprp, 'ipco');
  if (!ipco) return undefined;
  const properties = boxes(ipco.body);
  const colours = properties.flatMap((box, index) => (box.type === 'colr' ? [{ box, index: index + 1 }] : []));
  if (colours.length === 0) return undefined;
  const primary = primaryItem(metaChildren.find((b) => b.type === 'pitm'));
  const associated = primary === undefined ? [] : associations(child(iprp, 'ipma'), primary);
  const colour = colours.find((c) => associated.includes(c.index)) ?? colours[0]!;
  return colourProfile(colour.box.body);
}

function primaryItem(pitm: Box | undefined): number | undefined {
  if (!pitm || pitm.body.length < 6) return undefined;
  return pitm.body[0] === 0 ? pitm.body.readUInt16BE(4) : pitm.body.length >= 8 ? pitm.body.readUInt32BE(4) : undefined;
}

/** The 1-based property indexes `ipma` ties to `item`. */
function associations(ipma: Box | undefined, item: number): number[] {
  if (!ipma || ipma.body.length < 8) return [];
  const { body } = ipma;
  const version = body[0]!;
  const wideIndex = (body[3]! & 1) === 1;
  let offset = 4;
  const count = body.readUInt32BE(offset);
  offset += 4;
  for (let entry = 0; entry < count; entry++) {
    if (offset + (version < 1 ? 3 : 5) > body.length) return [];
    const id = version < 1 ? body.readUInt16BE(offset) : body.readUInt32BE(offset);
    offset += version < 1 ? 2 : 4;
    const n = body[offset]!;
    offset += 1;
    const indexes: number[] = [];
    for (let i = 0; i < n; i++) {
      if (offset + (wideIndex ? 2 : 1) > body.length) return [];
      indexes.push(wideIndex ? body.readUInt16BE(offset) & 0x7fff : body[offset]! & 0x7f);
      offset += wideIndex ? 2 : 1;
    }
    if (id === item) return indexes;
  }
  return [];
}

function colourProfile(body: Buffer): HeifProfile | undefined {
  const type = body.toString('latin1', 0, 4);
  if ((type === 'prof' || type === 'rICC') && body.length > 4 + 128) return { kind: 'icc', icc: body.subarray(4) };
  if (type === 'nclx' && body.length >= 10)
    return { kind: 'nclx', primaries: body.readUInt16BE(4), transfer: body.readUInt16BE(6) };
  return undefined;
}

const PNG_SIGNATURE_AND_IHDR = 8 + 4 + 4 + 13 + 4;

/**
 * `png` (as sharp writes it: the IHDR chunk first) with `icc` embedded as its iCCP chunk, so that sharp reads the
 * pixels in that profile's colours.
 */
export function withPngProfile(png: Buffer, icc: Buffer): Buffer {
  const data = Buffer.concat([Buffer.from('ICC profile\0\0', 'latin1'), deflateSync(icc)]);
  const type = Buffer.from('iCCP', 'latin1');
  const chunk = Buffer.alloc(12 + data.length);
  chunk.writeUInt32BE(data.length, 0);
  type.copy(chunk, 4);
  data.copy(chunk, 8);
  chunk.writeUInt32BE(crc32(Buffer.concat([type, data])), 8 + data.length);
  return Buffer.concat([png.subarray(0, PNG_SIGNATURE_AND_IHDR), chunk, png.subarray(PNG_SIGNATURE_AND_IHDR)]);
}
