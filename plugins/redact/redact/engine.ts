/**
 * The redaction engine on MuPDF (npm `mupdf`, WASM, AGPL-3.0-or-later), in four passes:
 *
 * 1. Page text: each page's content (annotations left out) is read as characters with their
 *    quads, in MuPDF's reading order, so a phrase shown by several text-show operators, a TJ
 *    array or kerned glyphs reads as one string. Every match becomes a Redact annotation over
 *    its glyphs, and applying it removes those glyphs from the content streams (inside form
 *    XObjects too) and draws a black box where they were. Images under a box get their pixels
 *    there painted black (REDACT_IMAGE_PIXELS); other images and vector art are left alone.
 * 2. Every string of every object: the Info dictionary, annotation contents and authors, form
 *    field values, bookmark titles... lose their matches.
 * 3. XMP metadata streams lose their matches, and so do the /ActualText, /Alt and /E strings of
 *    marked content inside page content streams and form XObjects.
 * 4. Annotations whose strings changed, or whose appearance shows a match, get their appearance
 *    rebuilt from the cleaned values (or dropped when MuPDF cannot rebuild it).
 *
 * The document is then written whole (no incremental update) with unreachable objects removed,
 * so nothing removed survives in the bytes. With no match the caller returns the input as it is.
 */
import type * as Mupdf from 'mupdf';
import { scrubContentStrings } from './content-strings.js';
import type { Matcher } from './matcher.js';
import { scrubText } from './matcher.js';

type MupdfModule = typeof Mupdf;
let loading: Promise<MupdfModule> | undefined;
/** Loaded on first use: the WASM module is big, and sandbox processes preload every family. */
const loadMupdf = () => (loading ??= import('mupdf'));

export interface RedactProgress {
  signal: AbortSignal;
  /** 0-100 over the engine's own work. */
  progress(percent: number): void;
}

export interface Redaction {
  /** Regions removed: matches in page text, strings and metadata. */
  detected: number;
  /** The redacted PDF; undefined when nothing matched. */
  output?: Uint8Array;
}

interface PageCharacters {
  text: string;
  /** One per character of `text`; null for the line breaks added between lines. */
  quads: Array<Mupdf.Quad | null>;
  /** Where the page's images are drawn. */
  images: Mupdf.Rect[];
}

/** The characters of a page's own content (annotations left out), each with its quad, and its images. */
function pageCharacters(mupdf: MupdfModule, page: Mupdf.PDFPage): PageCharacters {
  const list = new mupdf.DisplayList(page.getBounds());
  const device = new mupdf.DisplayListDevice(list);
  page.runPageContents(device, mupdf.Matrix.identity);
  device.close();
  const stext = list.toStructuredText('preserve-whitespace,preserve-images');
  let text = '';
  const quads: Array<Mupdf.Quad | null> = [];
  const images: Mupdf.Rect[] = [];
  stext.walk({
    onImageBlock(bbox) {
      images.push(bbox);
    },
    onChar(c, _origin, _font, _size, quad) {
      // Ligatures and compatibility forms (ﬁ, full-width letters) are matched as the letters they stand for.
      for (const ch of c.normalize('NFKC')) {
        text += ch;
        quads.push(quad);
      }
    },
    endLine() {
      text += '\n';
      quads.push(null);
    },
  });
  stext.destroy();
  list.destroy();
  return { text, quads, images };
}

const xs = (quad: Mupdf.Quad) => [quad[0], quad[2], quad[4], quad[6]];
const ys = (quad: Mupdf.Quad) => [quad[1], quad[3], quad[5], quad[7]];

function boundsOf(quads: readonly Mupdf.Quad[]): Mupdf.Rect {
  const allX = quads.flatMap(xs);
  const allY = quads.flatMap(ys);
  return [Math.min(...allX), Math.min(...allY), Math.max(...allX), Math.max(...allY)];
}

const intersects = (a: Mupdf.Rect, b: Mupdf.Rect) => a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3];

/**
 * The quads to black out for a match on ordinary text: its glyphs, the first and last lengthened
 * along the writing direction by a fifth of their height (inside the space that separates words;
 * a rotated page or vertical text has its direction too).
 */
function textBox(quads: readonly Mupdf.Quad[]): Mupdf.Quad[] {
  const out = quads.map((quad) => [...quad] as Mupdf.Quad);
  // quad: ul(0, 1) ur(2, 3) ll(4, 5) lr(6, 7)
  const lengthen = (quad: Mupdf.Quad, end: 'start' | 'end') => {
    const dx = quad[2] - quad[0];
    const dy = quad[3] - quad[1];
    const length = Math.hypot(dx, dy) || 1;
    const pad = Math.hypot(quad[4] - quad[0], quad[5] - quad[1]) / 5;
    const [ux, uy] = [(dx / length) * pad, (dy / length) * pad];
    if (end === 'start') {
      quad[0] -= ux;
      quad[1] -= uy;
      quad[4] -= ux;
      quad[5] -= uy;
    } else {
      quad[2] += ux;
      quad[3] += uy;
      quad[6] += ux;
      quad[7] += uy;
    }
  };
  lengthen(out[0]!, 'start');
  lengthen(out[out.length - 1]!, 'end');
  return out;
}

/**
 * The box for a match lying on an image, typically the OCR text layer of a scan: that layer
 * places whole words only roughly over their picture (one scaled run per word, its trailing space
 * included, glyph heights from a placeholder font). So the box covers the whole words the match
 * touches, their trailing space, and a quarter of the line height around them: the picture of
 * the words must disappear with their text.
 */
function imageBox(characters: PageCharacters, start: number, end: number): Mupdf.Quad[] {
  const { text, quads } = characters;
  while (start > 0 && quads[start - 1] && !/\s/.test(text[start - 1]!)) start--;
  while (end < text.length && quads[end] && !/\s/.test(text[end]!)) end++;
  if (end < text.length && quads[end] && /\s/.test(text[end]!)) end++;
  const covered = quads.slice(start, end).filter((quad): quad is Mupdf.Quad => quad !== null);
  const [x0, y0, x1, y1] = boundsOf(covered);
  const pad = (y1 - y0) / 4;
  return [[x0 - pad, y0 - pad, x1 + pad, y0 - pad, x0 - pad, y1 + pad, x1 + pad, y1 + pad]];
}

/** Pass 1 on one page: returns the number of regions removed. */
function redactPageText(mupdf: MupdfModule, page: Mupdf.PDFPage, matcher: Matcher): number {
  const characters = pageCharacters(mupdf, page);
  let regions = 0;
  for (const { start, end } of matcher(characters.text)) {
    const covered = characters.quads.slice(start, end).filter((quad): quad is Mupdf.Quad => quad !== null);
    if (!covered.length) continue;
    const onImage = characters.images.some((image) => intersects(image, boundsOf(covered)));
    page.createAnnotation('Redact').setQuadPoints(onImage ? imageBox(characters, start, end) : textBox(covered));
    regions++;
  }
  if (regions)
    page.applyRedactions(
      true,
      mupdf.PDFPage.REDACT_IMAGE_PIXELS,
      mupdf.PDFPage.REDACT_LINE_ART_NONE,
      mupdf.PDFPage.REDACT_TEXT_REMOVE,
    );
  return regions;
}

/** Keys whose strings are not text: the file identifier, signature bytes. */
const BINARY_KEYS = new Set(['ID', 'Contents:Sig', 'ByteRange']);
/**
 * Dates are no one's secret, but a PDF date's 14 digits ("D:20261123182606Z") can pass a card
 * number's Luhn check: under these keys a value in the PDF date format is left alone.
 */
const DATE_KEYS = new Set(['CreationDate', 'ModDate', 'M', 'LastModified']);
const PDF_DATE = /^D:\d{4}(\d{2}){0,5}(Z|[+-]\d{2}'?(\d{2}'?)?)?$/;

/**
 * Pass 2 on one object (and the direct objects inside it): matched text removed from every
 * string. Returns the regions removed.
 */
function scrubStrings(doc: Mupdf.PDFDocument, container: Mupdf.PDFObject, matcher: Matcher): number {
  let removed = 0;
  const isSignature =
    container.isDictionary() && container.get('Type').isName() && container.get('Type').asName() === 'Sig';
  const entries: Array<[string | number, Mupdf.PDFObject]> = [];
  container.forEach((value, key) => {
    entries.push([key, value]);
  });
  for (const [key, value] of entries) {
    if (typeof key === 'string' && (BINARY_KEYS.has(key) || (isSignature && BINARY_KEYS.has(`${key}:Sig`)))) continue;
    if (value.isIndirect()) continue; // visited as an object of its own
    if (value.isString()) {
      if (typeof key === 'string' && DATE_KEYS.has(key) && PDF_DATE.test(value.asString())) continue;
      const scrubbed = scrubText(value.asString(), matcher);
      if (scrubbed.removed) {
        container.put(key, doc.newString(scrubbed.text));
        removed += scrubbed.removed;
      }
    } else if (value.isDictionary() || value.isArray()) {
      removed += scrubStrings(doc, value, matcher);
    }
  }
  return removed;
}

const nameOf = (object: Mupdf.PDFObject, key: string) => {
  const value = object.get(key);
  return value.isName() ? value.asName() : undefined;
};

/** The object numbers of a page's content streams. */
function contentStreams(page: Mupdf.PDFPage): number[] {
  const contents = page.getObject().get('Contents');
  if (contents.isIndirect() && !contents.resolve().isArray()) return [contents.asIndirect()];
  const numbers: number[] = [];
  contents.resolve().forEach((item) => {
    if (item.isIndirect()) numbers.push(item.asIndirect());
  });
  return numbers;
}

const isXmp = (object: Mupdf.PDFObject) => nameOf(object, 'Type') === 'Metadata' || nameOf(object, 'Subtype') === 'XML';

/** Passes 2 and 3 over every object; returns the regions removed and the numbers of the objects changed. */
function scrubObjects(
  doc: Mupdf.PDFDocument,
  matcher: Matcher,
  signal: AbortSignal,
  pageContents: ReadonlySet<number>,
): { removed: number; changed: Set<number> } {
  let removed = 0;
  const changed = new Set<number>();
  const count = doc.countObjects();
  for (let num = 1; num < count; num++) {
    if (num % 500 === 0) signal.throwIfAborted();
    const reference = doc.newIndirect(num);
    const object = reference.resolve();
    let here = 0;
    if (object.isString()) {
      const scrubbed = scrubText(object.asString(), matcher);
      if (scrubbed.removed) {
        reference.writeObject(doc.newString(scrubbed.text));
        here += scrubbed.removed;
      }
    } else if (object.isDictionary() || object.isArray()) {
      here += scrubStrings(doc, object, matcher);
    }
    // Stream data belongs to the reference, not to its resolved dictionary.
    if (reference.isStream() && isXmp(object)) {
      const xml = reference.readStream().asString();
      const scrubbed = scrubText(xml, matcher);
      if (scrubbed.removed) {
        reference.writeStream(scrubbed.text);
        here += scrubbed.removed;
      }
    }
    if (reference.isStream() && (pageContents.has(num) || nameOf(object, 'Subtype') === 'Form')) {
      const scrubbed = scrubContentStrings(
        Buffer.from(reference.readStream().asUint8Array()).toString('latin1'),
        matcher,
      );
      if (scrubbed.removed) {
        reference.writeStream(Buffer.from(scrubbed.data, 'latin1'));
        here += scrubbed.removed;
      }
    }
    if (here) {
      removed += here;
      changed.add(num);
    }
  }
  // A trailer may hold its Info dictionary directly.
  removed += scrubStrings(doc, doc.getTrailer(), matcher);
  return { removed, changed };
}

/** Whether an annotation's appearance shows matched text. */
function appearanceMatches(annotation: Mupdf.PDFAnnotation, matcher: Matcher): boolean {
  const list = annotation.toDisplayList();
  const stext = list.toStructuredText('preserve-whitespace');
  const text = stext.asText().normalize('NFKC');
  stext.destroy();
  list.destroy();
  return matcher(text).length > 0;
}

/** Pass 4 on one page: appearances rebuilt from cleaned values; returns regions found only in appearances. */
function cleanAnnotations(page: Mupdf.PDFPage, matcher: Matcher, changed: ReadonlySet<number>): number {
  let regions = 0;
  const annotations: Mupdf.PDFAnnotation[] = [...page.getAnnotations(), ...page.getWidgets()];
  for (const annotation of annotations) {
    const object = annotation.getObject();
    const parent = object.get('Parent');
    const touched = [object, parent].some((o) => o.isIndirect() && changed.has(o.asIndirect()));
    const shows = appearanceMatches(annotation, matcher);
    if (!touched && !shows) continue;
    if (shows && !touched) regions++;
    object.delete('AP');
    annotation.update();
    // What MuPDF rebuilt comes from the cleaned values; if it still shows a match, no appearance at all.
    if (appearanceMatches(annotation, matcher)) object.delete('AP');
  }
  return regions;
}

/** Redact `input` (an unencrypted PDF) with `matcher`. */
export async function redactPdf(
  input: Uint8Array,
  matcher: Matcher,
  { signal, progress }: RedactProgress,
): Promise<Redaction> {
  const mupdf = await loadMupdf();
  signal.throwIfAborted();
  const doc = new mupdf.PDFDocument(input);
  try {
    const pages = doc.countPages();
    let detected = 0;
    const pageContents = new Set<number>();
    for (let index = 0; index < pages; index++) {
      signal.throwIfAborted();
      const page = doc.loadPage(index);
      detected += redactPageText(mupdf, page, matcher);
      for (const number of contentStreams(page)) pageContents.add(number);
      page.destroy();
      progress(5 + (70 * (index + 1)) / pages);
    }
    signal.throwIfAborted();
    const { removed, changed } = scrubObjects(doc, matcher, signal, pageContents);
    detected += removed;
    progress(80);
    for (let index = 0; index < pages; index++) {
      signal.throwIfAborted();
      const page = doc.loadPage(index);
      detected += cleanAnnotations(page, matcher, changed);
      page.destroy();
    }
    progress(85);
    if (!detected) return { detected };
    signal.throwIfAborted();
    // garbage=4: unreachable objects (the removed text's old streams, replaced strings) are dropped
    // and duplicates merged; written whole, never as an incremental update.
    const saved = doc.saveToBuffer('garbage=4,compress');
    const output = saved.asUint8Array().slice();
    saved.destroy();
    return { detected, output };
  } finally {
    doc.destroy();
  }
}
