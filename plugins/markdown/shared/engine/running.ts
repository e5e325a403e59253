/**
 * Running headers and footers. Two signals, both read at the ends of each page:
 * - repetition: lines near the top or bottom edge that repeat across pages once digits are
 *   normalised ("Page 3 of 7" = "Page 4 of 7", "12 · Journal of X" = "14 · Journal of X"),
 *   counted apart on odd and even pages so recto/verso headers repeat on their own side;
 * - folios: page numbers, recognised by following the page index (the number minus the page's
 *   index is the same on several pages; roman ones, a front matter's, on three), alone on a line
 *   ("3", "- 3 -", "Page 3", "iv") or at either end of a header or footer line whose title changes
 *   from page to page ("2.1 Section name        17", "12 Journal of X", "xii Preface");
 * - a band: a header or footer whose title changes by chapter or section ("Field Work" over
 *   two pages, then "Error Sources"), recognised by its place rather than its words: the first
 *   (or last) line of many pages at one distance from the edge, nothing of the text beyond it,
 *   set apart from the text by more than a line's pitch and no larger than the body. Such a
 *   line is running when its words repeat on another page's band line or echo a heading of
 *   the document (a running head repeats the title of the chapter it is in), so a slide's own
 *   title at the top of each slide stays;
 * - one page's own signs, where nothing can repeat (a one-page document): a page's first or last line,
 *   set apart from the text and no larger than the body, that names a heading of its page (a head
 *   repeating the document's title), or a print stamp in parts (a browser's date, address and "1/1").
 */
import { roundSize } from './lines.js';
import type { Line } from './types.js';

/** Share of the page height, at top and bottom, where repeated running lines live. */
const MARGIN_BAND = 0.2;
/** A chapter's title follows its label within this many of their sizes ("Chapter 1:" over "Work in progress"). */
const TITLE_GAP = 2.5;
/** How far from the page's edge (share of its height) a head or foot set apart in a wide margin may sit. */
const EDGE_REACH = 0.3;
/** A folio that shares its line with other text must sit this close to the page's edge. */
const FOLIO_BAND = 0.15;
/** How many lines from each end of a page are considered. */
const LINES_PER_END = 2;
/** A repeated line must appear on at least this share of the pages of its side (odd or even), and on two pages. */
const MIN_SIDE_SHARE = 0.5;
/** Or on this share of all pages (a header that some pages of either side carry). */
const MIN_PAGE_SHARE = 0.3;
/** A line at a page edge repeated on this many pages is running, whatever the document's length. */
const MIN_PAGES_ANY = 3;
/** A folio numbering (offset from the page index) must hold on this share of pages, and on two. */
const MIN_FOLIO_SHARE = 0.25;
/** Baselines this close (points, from the page's edge) are one band position. */
const SAME_POSITION = 1.5;
/** A header or footer is set apart from the text by more than this many line pitches. */
const APART = 1.5;
/** A band holds on this share of the pages, and on three. */
const MIN_BAND_SHARE = 0.3;
/** Pages (share, or one) where some other line lies beyond the band: a title page, a full-page figure. */
const BAND_EXCEPTIONS = 0.1;
/** Words of a running head that are not part of the title it repeats ("CHAPTER 1. RIVERS"). */
const TITLE_WORDS = /^(?:chapter|section|part|appendix|chapitre|kapitel|cap[ií]tulo|capitolo|hoofdstuk|page|seite)$/;

/**
 * A page number by its form alone: "Page 3", "3 of 7", "- 3 -". A bare number must follow the page index
 * (the folio rule): alone at a page's end it may be a footnote mark, an equation's or a music example's.
 */
const PAGE_NUMBER = /^(?:page\s*#+(?:\s*(?:of|\/)\s*#+)?|#+\s*(?:of|\/)\s*#+|[-–—(|]\s*#+\s*[-–—)|])$/i;
const LONE_FOLIO = /^(?:page\s*|p\.\s*)?[-–—(|]?\s*([0-9]{1,4}|[ivxlc]{1,7})\s*[-–—)|]?(?:\s*(?:of|\/)\s*\d+)?$/i;
const ROMAN = /^(?=[ivxlc])c{0,3}(?:xc|xl|l?x{0,3})(?:ix|iv|v?i{0,3})$/i;
const ROMAN_VALUE: Record<string, number> = { i: 1, v: 5, x: 10, l: 50, c: 100 };

export interface PageLines {
  height: number;
  lines: Line[];
}

export function runningKey(text: string): string {
  return text.toLowerCase().replace(/\d+/g, '#').replace(/\s+/g, ' ').trim();
}

/**
 * End lines set apart from the text (by more than APART pitches) at a distance from the page's edge that
 * the end lines of other pages share: a head or foot inside a wide margin (a foot 190 pt above the
 * bottom of an A4 page) is outside the text block although far from the paper's edge.
 */
function sharedEdgeLines(pages: readonly PageLines[], pitch: number): Set<Line> {
  const found = new Set<Line>();
  for (const end of ['top', 'bottom'] as const) {
    const apart = pages.flatMap((page) => {
      const ordered = end === 'top' ? page.lines : [...page.lines].reverse();
      const [edge, next] = ordered;
      if (!edge || (next && Math.abs(next.baseline - edge.baseline) <= APART * pitch)) return [];
      return [{ line: edge, distance: end === 'top' ? edge.baseline : page.height - edge.baseline }];
    });
    // Each page's line nearest this edge, measured once (not per candidate: a long document has thousands).
    const nearest = pages.map((page) =>
      page.lines.reduce(
        (min, line) => Math.min(min, end === 'top' ? line.baseline : page.height - line.baseline),
        Number.POSITIVE_INFINITY,
      ),
    );
    for (const candidate of apart) {
      if (candidate.distance > EDGE_REACH * pages[0]!.height) continue;
      const same = apart.filter((other) => Math.abs(other.distance - candidate.distance) <= SAME_POSITION).length;
      // Outside the text block: on the other pages no line lies beyond that place, but on a page or two.
      const beyond = nearest.filter((distance) => distance < candidate.distance - SAME_POSITION).length;
      if (same >= Math.max(MIN_PAGES_ANY, MIN_BAND_SHARE * pages.length) && beyond <= BAND_EXCEPTIONS * pages.length)
        found.add(candidate.line);
    }
  }
  return found;
}

/**
 * Pages that carry one repeated line lie close together somewhere (a chapter's head over its pages, a
 * head on every page of a side): at least half the steps between them are of one or two pages. A line
 * found only every fifth page is the text of a document printed in several copies (an exam's versions).
 */
function clustered(indices: readonly number[]): boolean {
  const steps = indices.slice(1).map((index, i) => index - indices[i]!);
  return steps.filter((step) => step <= 2).length * 2 >= steps.length;
}

/**
 * The second line from a page's end belongs to the text when it sits closer to the text than to the
 * end line (a subheading "Parameters" opening each page under the head), to the head when it sits
 * closer to it (a two-line foot).
 */
function withText({ lines }: PageLines, line: Line): boolean {
  const at = lines.indexOf(line);
  const inner = at === 1 ? lines[2] : at === lines.length - 2 ? lines[at - 1] : undefined;
  const outer = at === 1 ? lines[0] : at === lines.length - 2 ? lines[at + 1] : undefined;
  if (!inner || !outer) return false;
  return Math.abs(inner.baseline - line.baseline) < Math.abs(outer.baseline - line.baseline);
}

function endLines({ lines }: PageLines): Line[] {
  return [...new Set([...lines.slice(0, LINES_PER_END), ...lines.slice(-LINES_PER_END)])];
}

function nearEdge(line: Line, height: number, band: number): boolean {
  return line.baseline < height * band || line.baseline > height * (1 - band);
}

/** "17" -> 17 (arabic), "xii" -> 12 (roman); anything else undefined. */
function folioValue(text: string): { kind: 'arabic' | 'roman'; value: number } | undefined {
  if (/^\d{1,4}$/.test(text)) return { kind: 'arabic', value: Number(text) };
  if (!ROMAN.test(text)) return undefined;
  const digits = [...text.toLowerCase()].map((c) => ROMAN_VALUE[c]!);
  return { kind: 'roman', value: digits.reduce((n, v, i) => n + (v < (digits[i + 1] ?? 0) ? -v : v), 0) };
}

/** The page number a line shows, if it is a lone folio or a header/footer starting or ending with one. */
function folioOf(
  line: Line,
  height: number,
  bodySize: number,
): { kind: 'arabic' | 'roman'; value: number } | undefined {
  const lone = LONE_FOLIO.exec(line.text.trim());
  if (lone) return folioValue(lone[1]!);
  if (!nearEdge(line, height, FOLIO_BAND) || line.size > bodySize + 0.5) return undefined;
  if (line.segments.length >= 2) {
    const ends = folioValue(line.segments[0]!.text) ?? folioValue(line.segments[line.segments.length - 1]!.text);
    if (ends) return ends;
  }
  // "12 Journal of X" or "xii Preface" set with a word space: a number at either end of a light line.
  // Bold lines are left alone: a body-size numbered heading ("2 Methods") may open a page.
  if (line.bold) return undefined;
  const words = line.text.trim().split(/\s+/);
  if (words.length < 2) return undefined;
  return folioValue(words[0]!) ?? folioValue(words[words.length - 1]!);
}

function bodySizeOf(pages: readonly PageLines[]): number {
  const chars = new Map<number, number>();
  for (const line of pages.flatMap((p) => p.lines))
    chars.set(roundSize(line.size), (chars.get(roundSize(line.size)) ?? 0) + line.text.length);
  return [...chars].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0]?.[0] ?? 10;
}

/**
 * Letters only, lower case, without "chapter"/"section" words: what a running head and its heading
 * share. A roman folio at either end goes too ("ii CHAPTER 0. PREFACE" in a book's front matter).
 */
function titleWords(text: string): string {
  const words = text
    .toLowerCase()
    .split(/[^\p{L}]+/u)
    .filter((word) => word && !TITLE_WORDS.test(word));
  const folio = (word: string | undefined) => word !== undefined && words.length > 1 && ROMAN.test(word);
  if (folio(words[0])) words.shift();
  if (folio(words[words.length - 1])) words.pop();
  return words.join(' ');
}

/** The usual step between baselines of consecutive body lines. */
function linePitch(pages: readonly PageLines[], bodySize: number): number {
  const steps: number[] = [];
  for (const { lines } of pages)
    for (let i = 1; i < lines.length; i++) {
      const step = lines[i]!.baseline - lines[i - 1]!.baseline;
      if (roundSize(lines[i]!.size) === bodySize && step >= 0.8 * bodySize && step <= 2.5 * bodySize) steps.push(step);
    }
  steps.sort((a, b) => a - b);
  return steps[Math.floor(steps.length / 2)] ?? 1.2 * bodySize;
}

/** Header (top) or footer (bottom) lines found by their place: see the file's comment. */
function bandLines(pages: readonly PageLines[], bodySize: number, end: 'top' | 'bottom'): Set<Line>[] {
  const none = pages.map(() => new Set<Line>());
  const pitch = linePitch(pages, bodySize);
  const fromEdge = (line: Line, page: PageLines) => (end === 'top' ? line.baseline : page.height - line.baseline);
  const candidates = pages.map((page) => {
    const ordered = end === 'top' ? page.lines : [...page.lines].reverse();
    const [edge, next] = ordered;
    if (!edge || !next || edge.size > bodySize + 0.5 || !nearEdge(edge, page.height, MARGIN_BAND)) return undefined;
    return Math.abs(next.baseline - edge.baseline) > APART * pitch ? edge : undefined;
  });
  const distances = candidates.flatMap((line, i) => (line ? [fromEdge(line, pages[i]!)] : []));
  const near = (a: number, b: number) => Math.abs(a - b) <= SAME_POSITION;
  // The position most candidates share (the nearest to the edge on a tie).
  const position = [...distances]
    .sort((a, b) => a - b)
    .map((d) => ({ d, count: distances.filter((o) => near(o, d)).length }))
    .reduce<{ d: number; count: number } | undefined>(
      (best, c) => (!best || c.count > best.count ? c : best),
      undefined,
    );
  if (!position || position.count < 2) return none;
  // Fewer band lines than a band needs (a short document with heads on two pages) are running
  // only when each of them repeats a heading of the text (checked below).
  const few = position.count < 3 || position.count < MIN_BAND_SHARE * pages.length;
  const members = candidates.map((line, i) => (line && near(fromEdge(line, pages[i]!), position.d) ? line : undefined));
  // The band is the running lines' own: no other line reaches it (the text starts below it even
  // where there is no header), but on a title page or two. Page titles at the top of the text
  // block, with the text of other pages starting at the same place, are no band.
  const beyond = pages.filter((page, i) =>
    page.lines.some((line) => line !== members[i] && fromEdge(line, page) < position.d + SAME_POSITION),
  ).length;
  if (beyond > Math.max(1, BAND_EXCEPTIONS * pages.length)) return none;
  const keys = members.map((line) => (line ? titleWords(line.text) : ''));
  const headings = new Set(
    pages.flatMap((page, i) =>
      page.lines
        .filter((line) => line !== members[i] && (line.bold || line.size > bodySize + 0.5))
        .map((line) => titleWords(line.text)),
    ),
  );
  if (few && members.some((line, i) => line && !headings.has(keys[i]!))) return none;
  // A head set in parts (chapter left, section right) is running when one part repeats on another band
  // line or names a heading; a part cut short ("CHAPTER 2. GETTING AND INSTALLING …") names a heading
  // that starts with its words.
  const parts = members.map((line) =>
    line && line.segments.length >= 2 ? line.segments.map((segment) => segment.text) : [],
  );
  const partPages = new Map<string, number>();
  for (const texts of parts)
    for (const key of new Set(texts.map(titleWords).filter(Boolean))) partPages.set(key, (partPages.get(key) ?? 0) + 1);
  const namesHeading = (text: string) => {
    const key = titleWords(text);
    if (!key) return false;
    if ((partPages.get(key) ?? 0) >= 2 || headings.has(key)) return true;
    const cut = /(?:…|\.\.\.)\s*$/.test(text) && key.split(' ').length >= 2;
    return cut && [...headings].some((heading) => heading.startsWith(`${key} `));
  };
  return members.map((line, i) => {
    const key = keys[i]!;
    const repeats = keys.filter((k) => k === key).length >= 2;
    return new Set(line && key && (repeats || headings.has(key) || parts[i]!.some(namesHeading)) ? [line] : []);
  });
}

/**
 * "Chapter 1:" over "Work in progress", both set larger than the body: a chapter's label repeats on every
 * chapter's first page with only its number changing, yet it is the chapter's heading. A running head
 * is followed by the text, not by a title set as large as itself.
 */
function opensChapter(line: Line, page: PageLines, bodySize: number): boolean {
  const next = page.lines[page.lines.indexOf(line) + 1];
  const large = (l: Line) => l.size > bodySize + 0.5;
  // The title follows within a line or two of the label's size; a head stands further from a heading below it.
  const close = (l: Line) => l.baseline - line.baseline <= TITLE_GAP * Math.max(line.size, l.size);
  // The label numbers its chapter; a form's title over its subtitle, the same on every page, is a head.
  const numbered = /\d|\b[IVXLC]+\b/.test(line.text);
  return page.lines[0] === line && numbered && large(line) && next !== undefined && large(next) && close(next);
}

/**
 * A number alone at a page's very top or foot, set apart from the text, that is the page's own number:
 * a folio even where no other page shows the numbering (a one-page memo's "1").
 */
function ownNumber(page: PageLines, line: Line, index: number, pitch: number): boolean {
  const at = page.lines.indexOf(line);
  const neighbour = at === 0 ? page.lines[1] : at === page.lines.length - 1 ? page.lines[at - 1] : undefined;
  if (!neighbour || !nearEdge(line, page.height, MARGIN_BAND)) return false;
  const value = /^\d{1,4}$/.test(line.text.trim()) ? Number(line.text.trim()) : undefined;
  return value === index + 1 && Math.abs(neighbour.baseline - line.baseline) > APART * pitch;
}

/** A heading's words must be this many to be named by a head: one word is too common in a line of text. */
const MIN_NAMED_WORDS = 2;
/** A date, a time or both, as browsers and mailers print them ("11/28/26, 10:57 PM", "2026-11-28 10:57"). */
const DATE_STAMP =
  /^(?:\d{1,2}[/.]\d{1,2}[/.]\d{2,4}|\d{4}-\d{2}-\d{2})(?:,?\s+\d{1,2}:\d{2}(?::\d{2})?(?:\s*[ap]\.?m\.?)?)?$/i;
const URL_STAMP = /^(?:[a-z][a-z0-9+.-]*:\/\/|www\.)\S+$/i;

/** A page's first or last line and its neighbour, when the line is set apart from the text beyond it. */
function apartEdge(page: PageLines, line: Line, pitch: number): boolean {
  const at = page.lines.indexOf(line);
  const neighbour = at === 0 ? page.lines[1] : at === page.lines.length - 1 ? page.lines[at - 1] : undefined;
  return (
    neighbour !== undefined &&
    nearEdge(line, page.height, MARGIN_BAND) &&
    Math.abs(neighbour.baseline - line.baseline) > APART * pitch
  );
}

/**
 * A head that names its page's heading: set apart at the page's end, light and no larger than the body, and the
 * words of a heading of the page (bold or larger, two words or more) are the head's, or open or close it, or make
 * one of its parts, as a running head repeats a title beside a label ("Working paper: Field Report on Yarrow
 * Point" over the title "Field Report on Yarrow Point"). On a page with nothing to repeat it is told by this alone.
 * A caption that mentions a heading amid its words ("Table 6: Effects of the bold-style package option." under
 * "Bold style") names none; a line going on with a sentence starts in lower case.
 */
function namesPageHeading(page: PageLines, line: Line, bodySize: number, pitch: number): boolean {
  if (line.bold || line.size > bodySize + 0.5 || !apartEdge(page, line, pitch)) return false;
  if (/^\P{L}*\p{Ll}/u.test(line.text)) return false;
  const words = titleWords(line.text);
  const parts = new Set(line.segments.map((segment) => titleWords(segment.text)));
  return page.lines.some((other) => {
    if (other === line || !(other.bold || other.size > bodySize + 0.5)) return false;
    const heading = titleWords(other.text);
    if (heading.split(' ').length < MIN_NAMED_WORDS) return false;
    return words.startsWith(`${heading} `) || words.endsWith(` ${heading}`) || words === heading || parts.has(heading);
  });
}

/**
 * A print stamp: a page's end line set apart, smaller than the body, in parts (set with wide gaps), one part at
 * either end a date or time, an address, or the page's number out of the count ("1/1", "Page 1 of 3"), as
 * browsers print a page's head and foot. A bare number is no sign here: a footnote's mark stands so.
 */
function printStamp(page: PageLines, line: Line, index: number, bodySize: number, pitch: number): boolean {
  if (line.segments.length < 2 || line.size >= bodySize - 0.5 || !apartEdge(page, line, pitch)) return false;
  const ends = [line.segments[0]!.text.trim(), line.segments[line.segments.length - 1]!.text.trim()];
  const ownNumber = (text: string) =>
    PAGE_NUMBER.test(runningKey(text)) && /\d+/.exec(text)?.[0] === String(index + 1) && /\d\D+\d/.test(text);
  return ends.some((text) => DATE_STAMP.test(text) || URL_STAMP.test(text) || ownNumber(text));
}

/** The running lines of each page, to be dropped (lines must be in reading order). */
export function findRunningLines(pages: readonly PageLines[]): Set<Line>[] {
  const ends = pages.map(endLines);
  const bodySize = bodySizeOf(pages);
  const pitch = linePitch(pages, bodySize);
  const edgeLines = sharedEdgeLines(pages, pitch);
  const atEdge = (line: Line, index: number) =>
    nearEdge(line, pages[index]!.height, MARGIN_BAND) || edgeLines.has(line);

  // The size is part of the key: a title that repeats the running header's words is not running.
  // The parts of a head set apart are taken in any order: facing pages mirror them ("cours   2 Title"
  // on a right-hand page, "2 Title   cours" on a left-hand one).
  const keyOf = (line: Line) =>
    `${line.segments
      .map((segment) => runningKey(segment.text))
      .sort()
      .join(' ')}|${roundSize(line.size)}`;
  const counts = [new Map<string, number>(), new Map<string, number>()];
  const keyPages = new Map<string, number[]>();
  ends.forEach((lines, index) => {
    for (const key of new Set(lines.filter((l) => atEdge(l, index)).map(keyOf))) {
      counts[index % 2]!.set(key, (counts[index % 2]!.get(key) ?? 0) + 1);
      const indices = keyPages.get(key);
      if (indices) indices.push(index);
      else keyPages.set(key, [index]);
    }
  });
  // Judged once per line, not per page that carries it.
  const scattered = new Set([...keyPages].filter(([, indices]) => !clustered(indices)).map(([key]) => key));
  const sidePages = [Math.ceil(pages.length / 2), Math.floor(pages.length / 2)];
  const repeated = (key: string, index: number) => {
    const side = counts[index % 2]!.get(key) ?? 0;
    const both = side + (counts[1 - (index % 2)]!.get(key) ?? 0);
    // A chapter's running title repeats over that chapter's pages only: three pages are enough.
    if (scattered.has(key)) return false;
    return (
      both >= MIN_PAGES_ANY ||
      (both >= 2 &&
        (both >= MIN_PAGE_SHARE * pages.length || (side >= 2 && side >= MIN_SIDE_SHARE * sidePages[index % 2]!)))
    );
  };

  const folios = ends.map((lines, index) =>
    lines.map((line) => ({ line, folio: folioOf(line, pages[index]!.height, bodySize) })),
  );
  const offsetKey = (folio: { kind: string; value: number }, index: number) => `${folio.kind}:${folio.value - index}`;
  const offsetPages = new Map<string, Set<number>>();
  folios.forEach((found, index) => {
    for (const { folio } of found)
      if (folio)
        offsetPages.set(offsetKey(folio, index), (offsetPages.get(offsetKey(folio, index)) ?? new Set()).add(index));
  });
  // Roman folios number a front matter only, a few pages of a long document: three in step are enough.
  const folioHolds = (key: string) => {
    const count = offsetPages.get(key)?.size ?? 0;
    return count >= 2 && (count >= MIN_FOLIO_SHARE * pages.length || (key.startsWith('roman') && count >= 3));
  };

  const bands = [bandLines(pages, bodySize, 'top'), bandLines(pages, bodySize, 'bottom')];
  return ends.map(
    (lines, index) =>
      new Set(
        lines.filter((line) => {
          if (bands.some((band) => band[index]!.has(line))) return true;
          if (
            atEdge(line, index) &&
            // A line of digits alone repeats by its form only: whether it is a folio, the folio rule says.
            ((/\p{L}/u.test(line.text) &&
              repeated(keyOf(line), index) &&
              !withText(pages[index]!, line) &&
              !opensChapter(line, pages[index]!, bodySize)) ||
              PAGE_NUMBER.test(runningKey(line.text)))
          )
            return true;
          const folio = folios[index]!.find((f) => f.line === line)?.folio;
          if (folio !== undefined && folioHolds(offsetKey(folio, index))) return true;
          return (
            ownNumber(pages[index]!, line, index, pitch) ||
            namesPageHeading(pages[index]!, line, bodySize, pitch) ||
            printStamp(pages[index]!, line, index, bodySize, pitch)
          );
        }),
      ),
  );
}
