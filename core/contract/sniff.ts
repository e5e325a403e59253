/**
 * Text sniffing: formats without magic bytes (csv, json, srt, vtt, txt, md, svg) are confirmed by
 * reading the upload's head as text. Text is UTF-8 (with or without a BOM), UTF-16 LE/BE with its
 * BOM, or legacy single-byte text; the format's own opening is required where it has one.
 */
import { FORMATS, isFormatId, type FormatId } from '../../schema/index.js';
import { byteOrderMark, decodeUnicode, type UnicodeEncoding } from './text.js';

export type TextVerdict = { ok: true } | { ok: false; found: string };

/** What the head must open with, per format that has an opening, and how a miss is described. */
const OPENINGS: Partial<Record<FormatId, { test: (text: string) => boolean; otherwise: string }>> = {
  json: { test: (text) => /^\s*[[{"]/.test(text), otherwise: 'text that is not JSON' },
  html: { test: (text) => /<[a-z!?]/i.test(text), otherwise: 'text without any HTML tag' },
  url: {
    test: (text) => /^\s*(\[InternetShortcut\]|https?:\/\/\S+\s*$)/i.test(text),
    otherwise: 'text that is not a URL or an [InternetShortcut] file',
  },
  vtt: { test: (text) => /^WEBVTT/.test(text), otherwise: 'text without the WEBVTT header' },
  srt: {
    test: (text) => /^\s*\d+\s*\r?\n\s*\d{1,2}:\d{2}:\d{2}[,.]\d{3}\s*-->/.test(text),
    otherwise: 'text that is not SubRip (no numbered cue)',
  },
};

/**
 * file-type reads a TIFF's first directory to tell camera raw formats apart and reports nothing when that directory
 * lies past the head it is given (ImageMagick and many scanners write it after the pixels): the header alone says
 * TIFF (classic and BigTIFF, either byte order).
 */
const TIFF_HEADERS = ['II*\0', 'MM\0*', 'II+\0', 'MM\0+'].map((header) => Buffer.from(header, 'latin1'));

/**
 * Does `head` (a file's first bytes) hold `format`? `detected` is file-type's guess from magic
 * bytes. A plugin-declared format's own sniffer decides alone; text formats are checked as text;
 * any other format needs a detection in its sniff list. Uploads and the conformance kit's output
 * check both ask this.
 */
export function checkContent(format: FormatId, head: Buffer, given: string | undefined): TextVerdict {
  const detected = given ?? (TIFF_HEADERS.some((header) => head.subarray(0, 4).equals(header)) ? 'tif' : undefined);
  const info = FORMATS[format];
  if (info.detect) return info.detect(head) ? { ok: true } : { ok: false, found: `data the ${format} sniffer refuses` };
  if (info.text) return checkText(format, head, detected);
  if (detected !== undefined && info.sniff.includes(detected)) return { ok: true };
  return { ok: false, found: detected ? `${detected} data` : 'unrecognised data' };
}

/**
 * Does `head` (the upload's first bytes) hold text of `format`? `detected` is file-type's guess
 * from magic bytes, if any: a detection that is XML or one of our own text formats (file-type
 * knows WebVTT) is text and goes on to the text checks; any other is binary and refused. A UTF-16
 * BOM settles the matter first: file-type reads FF FE as an MPEG audio frame header.
 */
export function checkText(format: FormatId, head: Buffer, detected: string | undefined): TextVerdict {
  const bom = byteOrderMark(head);
  const utf16 = bom !== undefined && bom.encoding !== 'utf-8';
  if (format === 'svg') {
    // SVG is checked by its root element only (as before): XML of any encoding a BOM announces.
    return /<svg[\s>]/i.test(bom ? decodeUnicode(head) : head.toString('utf8'))
      ? { ok: true }
      : { ok: false, found: 'no <svg> element' };
  }
  if (detected && !utf16 && !isTextDetection(detected)) return { ok: false, found: `${detected} data` };
  const text = headText(head);
  if (text === undefined) return { ok: false, found: 'binary data' };
  const opening = OPENINGS[format];
  if (opening && !opening.test(text)) return { ok: false, found: opening.otherwise };
  return { ok: true };
}

/** XML, or a format of ours that is text (WebVTT): content file-type recognises that is still text. */
export function isTextDetection(detected: string): boolean {
  return detected === 'xml' || (isFormatId(detected) && FORMATS[detected].text === true);
}

/**
 * The head decoded as text (BOM removed), or undefined when it is not text: a NUL, invalid UTF-8
 * that is not legacy single-byte text either, or broken UTF-16. The head may end anywhere, so a
 * character cut at its end is allowed.
 */
export function headText(head: Buffer): string | undefined {
  const bom = byteOrderMark(head);
  if (bom && bom.encoding !== 'utf-8') return utf16Text(head.subarray(bom.length), bom.encoding);
  const body = bom ? head.subarray(bom.length) : head;
  if (body.includes(0)) return undefined;
  const text = body.toString('utf8');
  // A cut multi-byte character at the end of the head is fine; invalid UTF-8 elsewhere is not.
  if (text.slice(0, -4).includes('\uFFFD') && !isLatin1Text(body)) return undefined;
  return text;
}

function utf16Text(body: Buffer, encoding: Exclude<UnicodeEncoding, 'utf-8'>): string | undefined {
  let units = body.subarray(0, body.length - (body.length % 2));
  if (units.length >= 2) {
    // A surrogate pair cut at the end of the head: drop its first half.
    const last = encoding === 'utf-16le' ? units.readUInt16LE(units.length - 2) : units.readUInt16BE(units.length - 2);
    if (last >= 0xd800 && last <= 0xdbff) units = units.subarray(0, -2);
  }
  let text: string;
  try {
    // fatal: a lone surrogate (common in binary read as UTF-16) is not text.
    text = new TextDecoder(encoding, { fatal: true, ignoreBOM: true }).decode(units);
  } catch {
    return undefined;
  }
  return text.includes('\0') ? undefined : text;
}

/** Legacy single-byte text (CSV exports from old spreadsheets) is still text. */
function isLatin1Text(head: Buffer): boolean {
  for (const byte of head) if (byte < 0x09 || (byte > 0x0d && byte < 0x20)) return false;
  return true;
}
