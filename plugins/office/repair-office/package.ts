/**
 * Salvaging an Office Open XML package (DOCX, XLSX, PPTX) from a damaged ZIP, without trusting
 * its central directory or its CRCs: every local file header found in the bytes gives a part
 * (sizes from the central directory when the local header defers them to a data descriptor);
 * stored parts are copied, deflated ones inflated as far as their data goes, so a truncated file
 * still yields the parts before the cut and the beginning of the part it cut. Inflation is
 * bounded per part and in total (a decompression bomb stops at the cap, it is not a repair).
 */
import { constants, inflateRawSync } from 'node:zlib';
import { PluginError } from '../../../core/contract/index.js';

export interface SalvagedPart {
  name: string;
  data: Buffer;
  /** The data ended early (truncated file or broken deflate stream): what came before the damage. */
  partial: boolean;
}

export interface SalvageLimits {
  maxParts: number;
  maxInflatedBytes: number;
}

const LOCAL = 0x04034b50;
const CENTRAL = 0x02014b50;
const END = 0x06054b50;

interface CentralEntry {
  compressedSize: number;
  method: number;
}

/** The central directory's sizes by local header offset, when it can be read at all. */
function centralDirectory(bytes: Buffer): Map<number, CentralEntry> {
  const entries = new Map<number, CentralEntry>();
  const end = bytes.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (end < 0 || end + 22 > bytes.length || bytes.readUInt32LE(end) !== END) return entries;
  let at = bytes.readUInt32LE(end + 16);
  const count = bytes.readUInt16LE(end + 10);
  for (let i = 0; i < count && at + 46 <= bytes.length && bytes.readUInt32LE(at) === CENTRAL; i++) {
    const nameLength = bytes.readUInt16LE(at + 28);
    const extraLength = bytes.readUInt16LE(at + 30);
    const commentLength = bytes.readUInt16LE(at + 32);
    entries.set(bytes.readUInt32LE(at + 42), {
      compressedSize: bytes.readUInt32LE(at + 20),
      method: bytes.readUInt16LE(at + 10),
    });
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

function plausibleName(name: string): boolean {
  return (
    name.length > 0 &&
    name.length < 512 &&
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses.
    !/[\x00-\x1f\\]/.test(name) &&
    !name.startsWith('/') &&
    !name.split('/').includes('..')
  );
}

/** Every part found, in file order; the first copy of a name wins. Throws when nothing at all is found. */
export function salvageParts(
  bytes: Buffer,
  { maxParts, maxInflatedBytes }: SalvageLimits,
  signal: AbortSignal,
): SalvagedPart[] {
  const central = centralDirectory(bytes);
  const parts: SalvagedPart[] = [];
  const seen = new Set<string>();
  let inflated = 0;
  const signature = Buffer.from([0x50, 0x4b, 0x03, 0x04]);
  for (let at = bytes.indexOf(signature); at >= 0 && at + 30 <= bytes.length; at = bytes.indexOf(signature, at + 4)) {
    signal.throwIfAborted();
    if (bytes.readUInt32LE(at) !== LOCAL) continue;
    const flags = bytes.readUInt16LE(at + 6);
    const method = bytes.readUInt16LE(at + 8);
    const nameLength = bytes.readUInt16LE(at + 26);
    const extraLength = bytes.readUInt16LE(at + 28);
    const dataStart = at + 30 + nameLength + extraLength;
    if (dataStart > bytes.length || (method !== 0 && method !== 8) || flags & 0x1) continue;
    const name = bytes.subarray(at + 30, at + 30 + nameLength).toString(flags & 0x800 ? 'utf8' : 'latin1');
    if (!plausibleName(name) || name.endsWith('/') || seen.has(name)) continue;
    let size = bytes.readUInt32LE(at + 18);
    if (flags & 0x8 || size === 0)
      size = central.get(at)?.compressedSize ?? (method === 8 ? bytes.length - dataStart : size);
    const raw = bytes.subarray(dataStart, Math.min(bytes.length, dataStart + size));
    let data: Buffer;
    let partial = dataStart + size > bytes.length;
    if (method === 0) data = Buffer.from(raw);
    else {
      const room = maxInflatedBytes - inflated;
      try {
        data = inflateRawSync(raw, { maxOutputLength: Math.max(1, room) });
      } catch (err) {
        if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
          throw new PluginError('The file is too large once decompressed (it may be a decompression bomb)', {
            cause: err,
          });
        }
        // Truncated or damaged deflate data: keep what inflates before the damage.
        try {
          data = inflateRawSync(raw, { finishFlush: constants.Z_SYNC_FLUSH, maxOutputLength: Math.max(1, room) });
        } catch {
          continue;
        }
        partial = true;
      }
    }
    inflated += data.length;
    if (inflated > maxInflatedBytes)
      throw new PluginError('The file is too large once decompressed (it may be a decompression bomb)');
    seen.add(name);
    parts.push({ name, data, partial });
    if (parts.length > maxParts)
      throw new PluginError(`The file holds more than ${maxParts} parts; it is not a document that can be repaired`);
  }
  if (!parts.length)
    throw new PluginError('Nothing could be recovered: the file holds no readable part of an Office document');
  return parts;
}

/**
 * XML well-formedness, as far as an Office part needs it: one root element, tags nested and
 * closed, attributes quoted, entity references valid, no DTD. Returns whether it is well formed
 * and, for XML cut short, a completed copy: everything up to the last complete tag with the
 * elements still open closed in order (so the text before a truncation survives).
 */
export function checkXml(xml: string): { ok: true } | { ok: false; completed?: string } {
  const stack: string[] = [];
  let roots = 0;
  let lastTagEnd = 0;
  // What a tag-level scan meets: markup (comment, CDATA, PI, DOCTYPE, tag) or text.
  const token = new RegExp(
    String.raw`<!--[\s\S]*?-->|<!\[CDATA\[[\s\S]*?\]\]>|<\?[\s\S]*?\?>|<!DOCTYPE|` +
      String.raw`<(\/?)([\p{L}_][\p{L}\p{N}_.:-]*)((?:\s+[\p{L}_][\p{L}\p{N}_.:-]*\s*=\s*(?:"[^"<]*"|` +
      String.raw`'[^'<]*'))*)\s*(\/?)>|<|[^<]+`,
    'guy',
  );
  const badText = /&(?!(?:amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);)/;
  for (let match = token.exec(xml); match; match = token.exec(xml)) {
    const [whole, closing, name, attributes, selfClosing] = match;
    if (whole === '<!DOCTYPE') return { ok: false };
    if (whole === '<') return truncatedOrBad(xml, stack, lastTagEnd, match.index);
    if (name === undefined) {
      if (whole.startsWith('<')) {
        lastTagEnd = token.lastIndex;
        continue;
      }
      if (badText.test(whole) || (!stack.length && whole.trim())) return { ok: false };
      continue;
    }
    if (attributes && badText.test(attributes)) return { ok: false };
    if (closing) {
      if (stack.pop() !== name) return { ok: false };
    } else if (!selfClosing) {
      if (!stack.length && roots++) return { ok: false };
      stack.push(name);
    } else if (!stack.length && roots++) return { ok: false };
    lastTagEnd = token.lastIndex;
  }
  if (!roots) return { ok: false };
  return stack.length ? truncatedOrBad(xml, stack, lastTagEnd, xml.length) : { ok: true };
}

/** XML that ends inside an element (or a tag): complete it when the rest was well formed. */
function truncatedOrBad(
  xml: string,
  stack: string[],
  lastTagEnd: number,
  stoppedAt: number,
): { ok: false; completed?: string } {
  // A "<" that starts no valid tag is damage unless it is the beginning of a tag cut off at the end.
  if (stoppedAt < xml.length && xml.indexOf('>', stoppedAt) >= 0) return { ok: false };
  if (!stack.length) return { ok: false };
  const kept = xml.slice(0, lastTagEnd) + xml.slice(lastTagEnd, stoppedAt).replace(/&[^;]*$/, '');
  return {
    ok: false,
    completed: `${kept}${[...stack]
      .reverse()
      .map((name) => `</${name}>`)
      .join('')}`,
  };
}
