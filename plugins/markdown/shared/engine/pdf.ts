/**
 * The only module that talks to pdfjs: opens a document within a time budget and reads each page
 * into plain runs (text with position, size, weight) and rules (drawn straight lines).
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { PDFDocumentProxy, PDFPageProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { DocumentInitParameters, TextItem } from 'pdfjs-dist/types/src/display/api.js';
import { PluginError } from '../../../../core/contract/index.js';
import type { OutlineEntry, PageContent, Rule, ScanImage, TextRun } from './types.js';

type Matrix = [number, number, number, number, number, number];

const STANDARD_FONTS = join(
  dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json')),
  'standard_fonts/',
);

/** What pdfjs's font loader touches of a document, doing nothing: no font is ever drawn. */
const FONTLESS_DOCUMENT = {
  createElement: () => ({ sheet: { cssRules: [], insertRule: () => 0 }, remove: () => undefined }),
  documentElement: { getElementsByTagName: () => [{ append: () => undefined }] },
};
/** Drawn boxes thinner than this (points) are rules, not backgrounds. */
const MAX_RULE_THICKNESS = 3;
/** How far from horizontal/vertical (points) a stroked segment may lean and still count as a rule. */
const AXIS_TOLERANCE = 0.5;
const BOLD_FONT_NAME = /bold|black|heavy|demi/i;

type Pdfjs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');
type Ops = Pdfjs['OPS'];
let pdfjsModule: Promise<Pdfjs> | undefined;
/** pdfjs adds about 200 MB to a process once imported: loaded on the first document, not with the plugin's manifest. */
const loadPdfjs = (): Promise<Pdfjs> => (pdfjsModule ??= import('pdfjs-dist/legacy/build/pdf.mjs'));

const strokeOps = (OPS: Ops): ReadonlySet<number> =>
  new Set([OPS.stroke, OPS.closeStroke, OPS.fillStroke, OPS.eoFillStroke, OPS.closeFillStroke, OPS.closeEOFillStroke]);
const fillOps = (OPS: Ops): ReadonlySet<number> => new Set([OPS.fill, OPS.eoFill]);

// pdfjs path data opcodes (DrawOPS) and how many coordinates follow each.
const PATH_MOVE = 0;
const PATH_LINE = 1;
const PATH_CLOSE = 4;
const PATH_ARITY: Record<number, number> = { 0: 2, 1: 2, 2: 6, 3: 4, 4: 0 };

/** Rejects pending work once the budget runs out or the caller aborts. */
export class Deadline {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private readonly expired: Promise<never>;
  private readonly endsAt: number;

  constructor(timeoutMs: number, signal?: AbortSignal) {
    this.endsAt = Date.now() + timeoutMs;
    this.timer = setTimeout(
      () =>
        this.controller.abort(
          new PluginError(`PDF conversion took longer than ${Math.round(timeoutMs / 1000)} s and was stopped.`),
        ),
      timeoutMs,
    );
    this.timer.unref();
    const onAbort = () => this.controller.abort(new PluginError('PDF conversion was cancelled.'));
    if (signal?.aborted) onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    this.expired = new Promise((_, reject) => {
      const fail = () => reject(this.controller.signal.reason);
      if (this.controller.signal.aborted) fail();
      else this.controller.signal.addEventListener('abort', fail, { once: true });
    });
    this.expired.catch(() => undefined); // observed through race(); avoid an unhandled rejection
  }

  race<T>(work: Promise<T>): Promise<T> {
    return Promise.race([work, this.expired]);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Milliseconds left of the budget (for engines the conversion starts). */
  remainingMs(): number {
    return Math.max(0, this.endsAt - Date.now());
  }

  dispose(): void {
    clearTimeout(this.timer);
  }
}

export async function openDocument(data: Uint8Array, deadline: Deadline): Promise<PDFDocumentProxy> {
  const { getDocument } = await loadPdfjs();
  const task = getDocument({
    data: data.slice(), // pdfjs may transfer the buffer; keep the caller's intact
    standardFontDataUrl: STANDARD_FONTS,
    // Fonts are never drawn here. With font faces disabled pdfjs would build every glyph's outline
    // for drawing it as a path (a quarter of the parsing time); enabled, it hands each font to a
    // document that only takes note of it.
    disableFontFace: false,
    // The loader's only touch of a document: the rest of the DOM is never reached.
    ownerDocument: FONTLESS_DOCUMENT as unknown as DocumentInitParameters['ownerDocument'],
    isEvalSupported: false,
    useSystemFonts: false,
    stopAtErrors: true,
    verbosity: 0,
  });
  deadline.signal.addEventListener('abort', () => void task.destroy(), { once: true });
  try {
    const document = await deadline.race(task.promise);
    if (document.numPages < 1) throw new PluginError('This PDF has no pages.');
    return document;
  } catch (error) {
    await task.destroy();
    throw asPluginError(error);
  }
}

/** Bookmarks past this many are not read (a heading signal, not worth unbounded work). */
const MAX_OUTLINE_ENTRIES = 5000;

/**
 * The document's outline (bookmarks) with each entry's destination page, depth first. Entries
 * whose destination cannot be resolved are left out; a broken outline is no outline.
 */
export async function readOutline(document: PDFDocumentProxy, deadline: Deadline): Promise<OutlineEntry[]> {
  const entries: OutlineEntry[] = [];
  type Item = Awaited<ReturnType<PDFDocumentProxy['getOutline']>>[number];
  const visit = async (items: readonly Item[] | null | undefined, depth: number): Promise<void> => {
    for (const item of items ?? []) {
      if (entries.length >= MAX_OUTLINE_ENTRIES) return;
      const page = await destinationPage(document, item.dest, deadline);
      const title = item.title.replace(/\s+/g, ' ').trim();
      if (page !== undefined && title) entries.push({ title, depth, page });
      await visit(item.items, depth + 1);
    }
  };
  try {
    await visit(await deadline.race(document.getOutline()), 0);
  } catch (error) {
    if (deadline.signal.aborted) throw error;
    return [];
  }
  return entries;
}

async function destinationPage(
  document: PDFDocumentProxy,
  dest: string | unknown[] | null,
  deadline: Deadline,
): Promise<number | undefined> {
  try {
    const explicit = typeof dest === 'string' ? await deadline.race(document.getDestination(dest)) : dest;
    const ref = Array.isArray(explicit) ? explicit[0] : undefined;
    if (typeof ref === 'number') return ref + 1;
    if (ref && typeof ref === 'object')
      return (await deadline.race(document.getPageIndex(ref as { num: number; gen: number }))) + 1;
  } catch (error) {
    if (deadline.signal.aborted) throw error;
  }
  return undefined;
}

export function asPluginError(error: unknown): PluginError {
  if (error instanceof PluginError) return error;
  const name = (error as { name?: string } | undefined)?.name;
  if (name === 'PasswordException') {
    return new PluginError('This PDF is encrypted and needs a password; remove the password and try again.', {
      cause: error,
    });
  }
  return new PluginError('This file is not a readable PDF: it is damaged, truncated or not a PDF at all.', {
    cause: error,
  });
}

export async function readPage(document: PDFDocumentProxy, number: number, deadline: Deadline): Promise<PageContent> {
  const { AnnotationMode, OPS } = await loadPdfjs();
  const page = await deadline.race(document.getPage(number));
  try {
    const viewport = page.getViewport({ scale: 1 });
    const toPage = viewport.transform as Matrix;
    // The operator list loads the fonts, whose real names tell bold from regular.
    const operators = await deadline.race(page.getOperatorList({ annotationMode: AnnotationMode.DISABLE }));
    const text = await deadline.race(page.getTextContent({ disableNormalization: false }));
    const runs: TextRun[] = [];
    for (const item of text.items) {
      if (!('str' in item) || item.str.trim() === '') continue;
      runs.push(toRun(item, toPage, fontIsBold(page, item.fontName)));
    }
    const { rules, images } = walkOperators(operators.fnArray, operators.argsArray, toPage, OPS);
    const content: PageContent = { number, width: viewport.width, height: viewport.height, runs, rules };
    // No text layer: the page's largest image, if it covers most of the page, is a scan to OCR.
    if (runs.length === 0) content.scan = await largestImage(page, images, viewport.width * viewport.height, deadline);
    return content;
  } finally {
    page.cleanup();
  }
}

function fontIsBold(page: PDFPageProxy, fontId: string): boolean {
  if (!page.commonObjs.has(fontId)) return false;
  const font = page.commonObjs.get(fontId) as { name?: string; bold?: boolean; black?: boolean };
  return Boolean(font.bold || font.black || BOLD_FONT_NAME.test(font.name ?? ''));
}

function toRun(item: TextItem, toPage: Matrix, bold: boolean): TextRun {
  const [a, b, c, d, x, baseline] = multiply(toPage, item.transform as Matrix);
  const size = Math.hypot(c, d) || Math.hypot(a, b);
  const scale = Math.hypot(toPage[0], toPage[1]);
  return { text: item.str, x0: x, x1: x + item.width * scale, baseline, size, bold };
}

function multiply(m: Matrix, n: Matrix): Matrix {
  return [
    m[0] * n[0] + m[2] * n[1],
    m[1] * n[0] + m[3] * n[1],
    m[0] * n[2] + m[2] * n[3],
    m[1] * n[2] + m[3] * n[3],
    m[0] * n[4] + m[2] * n[5] + m[4],
    m[1] * n[4] + m[3] * n[5] + m[5],
  ];
}

function apply(m: Matrix, x: number, y: number): [number, number] {
  return [m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]];
}

/** An image drawn on the page: pdfjs object id (or the inline image itself) and where it lands. */
interface PlacedImage {
  id?: string;
  inline?: DecodedImage;
  ctm: Matrix;
}

interface DecodedImage {
  width: number;
  height: number;
  kind: number;
  data: Uint8Array | Uint8ClampedArray;
}

/** A scan must cover this share of the page. */
const SCAN_COVER = 0.5;
// pdfjs ImageKind
const GRAYSCALE_1BPP = 1;
const RGB_24BPP = 2;
const RGBA_32BPP = 3;

/**
 * Walks the operator list tracking the transform stack, keeping straight axis-aligned strokes
 * and thin filled boxes (rules), and the images drawn with their transforms.
 */
function walkOperators(
  fnArray: number[],
  argsArray: unknown[][],
  toPage: Matrix,
  OPS: Ops,
): { rules: Rule[]; images: PlacedImage[] } {
  const STROKE_OPS = strokeOps(OPS);
  const FILL_OPS = fillOps(OPS);
  const rules: Rule[] = [];
  const images: PlacedImage[] = [];
  const stack: Matrix[] = [];
  let ctm = toPage;
  fnArray.forEach((fn, index) => {
    const args = argsArray[index]!;
    if (fn === OPS.save || fn === OPS.paintFormXObjectBegin) stack.push(ctm);
    if (fn === OPS.restore || fn === OPS.paintFormXObjectEnd) ctm = stack.pop() ?? toPage;
    if (fn === OPS.transform) ctm = multiply(ctm, args as Matrix);
    if (fn === OPS.paintFormXObjectBegin && Array.isArray(args[0])) ctm = multiply(ctm, args[0] as Matrix);
    if (fn === OPS.paintImageXObject && typeof args[0] === 'string') images.push({ id: args[0], ctm });
    if (fn === OPS.paintInlineImageXObject && args[0]) images.push({ inline: args[0] as DecodedImage, ctm });
    if (fn !== OPS.constructPath) return;
    const paint = args[0] as number;
    const data = (args[1] as ArrayLike<number>[] | undefined)?.[0];
    if (!data) return;
    const subpaths = toSubpaths(data, ctm);
    if (STROKE_OPS.has(paint)) rules.push(...subpaths.flatMap(strokedRules));
    else if (FILL_OPS.has(paint)) rules.push(...subpaths.flatMap(filledRule));
  });
  return { rules, images };
}

/** Area of the unit square under `m` (where an image lands on the page). */
function imageArea(m: Matrix): number {
  return Math.abs(m[0] * m[3] - m[1] * m[2]);
}

async function largestImage(
  page: PDFPageProxy,
  images: readonly PlacedImage[],
  pageArea: number,
  deadline: Deadline,
): Promise<ScanImage | undefined> {
  const placed = [...images].sort((a, b) => imageArea(b.ctm) - imageArea(a.ctm))[0];
  if (!placed || imageArea(placed.ctm) < SCAN_COVER * pageArea) return undefined;
  const image =
    placed.inline ??
    (await deadline.race(
      new Promise<DecodedImage>((resolve) => {
        const objects = placed.id!.startsWith('g_') ? page.commonObjs : page.objs;
        objects.get(placed.id!, resolve as (data: unknown) => void);
      }),
    ));
  const gray = toGray(image);
  return gray && { width: image.width, height: image.height, gray, transform: placed.ctm };
}

/** 8-bit grey pixels, row by row from the top, of a decoded image (undefined for kinds we cannot read). */
function toGray({ width, height, kind, data }: DecodedImage): Uint8Array | undefined {
  const gray = new Uint8Array(width * height);
  if (kind === GRAYSCALE_1BPP) {
    const rowBytes = Math.ceil(width / 8);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++)
        gray[y * width + x] = (data[y * rowBytes + (x >> 3)]! >> (7 - (x & 7))) & 1 ? 255 : 0;
    }
    return gray;
  }
  const channels = kind === RGB_24BPP ? 3 : kind === RGBA_32BPP ? 4 : 0;
  if (!channels || data.length < width * height * channels) return undefined;
  for (let i = 0; i < width * height; i++) {
    const p = i * channels;
    gray[i] = Math.round(0.299 * data[p]! + 0.587 * data[p + 1]! + 0.114 * data[p + 2]!);
  }
  return gray;
}

/** Subpaths as point lists in page space; a subpath with curves is dropped (never a rule). */
function toSubpaths(data: ArrayLike<number>, ctm: Matrix): [number, number][][] {
  const subpaths: [number, number][][] = [];
  let current: [number, number][] = [];
  let curved = false;
  const finish = () => {
    if (current.length > 1 && !curved) subpaths.push(current);
    current = [];
    curved = false;
  };
  for (let i = 0; i < data.length; ) {
    const op = data[i]!;
    if (op === PATH_MOVE) finish();
    if (op === PATH_MOVE || op === PATH_LINE) current.push(apply(ctm, data[i + 1]!, data[i + 2]!));
    else if (op === PATH_CLOSE) {
      if (current.length) current.push(current[0]!);
    } else curved = true;
    i += 1 + (PATH_ARITY[op] ?? 0);
  }
  finish();
  return subpaths;
}

function strokedRules(points: [number, number][]): Rule[] {
  const rules: Rule[] = [];
  for (let i = 1; i < points.length; i++) {
    const [x0, y0] = points[i - 1]!;
    const [x1, y1] = points[i]!;
    const horizontal = Math.abs(y1 - y0) <= AXIS_TOLERANCE;
    const vertical = Math.abs(x1 - x0) <= AXIS_TOLERANCE;
    if (horizontal === vertical) continue; // a diagonal, or a zero-length dot
    rules.push(normalisedRule(x0, y0, x1, y1, horizontal));
  }
  return rules;
}

function filledRule(points: [number, number][]): Rule[] {
  const xs = points.map((p) => p[0]);
  const ys = points.map((p) => p[1]);
  const [left, right, top, bottom] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  const isBox = points.every(([x, y]) => (near(x, left) || near(x, right)) && (near(y, top) || near(y, bottom)));
  if (!isBox) return [];
  const width = right - left;
  const height = bottom - top;
  if (height <= MAX_RULE_THICKNESS && width > height)
    return [normalisedRule(left, (top + bottom) / 2, right, (top + bottom) / 2, true)];
  if (width <= MAX_RULE_THICKNESS && height > width)
    return [normalisedRule((left + right) / 2, top, (left + right) / 2, bottom, false)];
  return [];
}

function near(a: number, b: number): boolean {
  return Math.abs(a - b) <= AXIS_TOLERANCE;
}

function normalisedRule(x0: number, y0: number, x1: number, y1: number, horizontal: boolean): Rule {
  if (horizontal) {
    const y = (y0 + y1) / 2;
    return { x0: Math.min(x0, x1), y0: y, x1: Math.max(x0, x1), y1: y };
  }
  const x = (x0 + x1) / 2;
  return { x0: x, y0: Math.min(y0, y1), x1: x, y1: Math.max(y0, y1) };
}
