/** Paragraph text of a DOCX: headers first (CVs often put name and contact there), then the body. */
import { unzipSync } from 'fflate';
import { PluginError } from '../../../core/contract/index.js';
import { MB } from '../../../schema/index.js';

// A CV's document.xml is a few hundred KB; anything this big is not one (or is a zip bomb).
const MAX_PART_BYTES = 50 * MB;
const PART = /^word\/(document|header\d*)\.xml$/;

const unreadable = (cause?: unknown) =>
  new PluginError(
    'Could not read this DOCX: the file is damaged or is not a Word document',
    cause ? { cause } : undefined,
  );

export function docxText(bytes: Uint8Array): string {
  let parts: Record<string, Uint8Array>;
  try {
    parts = unzipSync(bytes, { filter: (file) => PART.test(file.name) && file.originalSize <= MAX_PART_BYTES });
  } catch (err) {
    throw unreadable(err);
  }
  const body = parts['word/document.xml'];
  if (!body) throw unreadable();
  const headers = Object.keys(parts)
    .filter((name) => name.startsWith('word/header'))
    .sort()
    .map((name) => parts[name]!);
  const lines = [...headers, body].flatMap((xml) => paragraphRuns(new TextDecoder().decode(xml)));
  return largestFirst(lines)
    .map((line) => line.text)
    .join('\n');
}

const TOKEN = /<(\/?)([A-Za-z]+:[A-Za-z]+)\b([^>]*?)(\/?)>|<[^>]*>|([^<]+)/g;
const SIZE = /w:val="(\d+)"/;

export interface Paragraph {
  text: string;
  /** The largest font size of its runs, in half-points (0 when not set). */
  size: number;
}

/**
 * WordprocessingML paragraphs as lines: text runs joined, tabs and breaks kept. Paragraphs of a
 * text box or a table cell come out as lines of their own, before the paragraph that anchors the
 * box; a text box's VML copy (mc:Fallback) is skipped so its text is read once.
 */
export function paragraphRuns(xml: string): Paragraph[] {
  const lines: Paragraph[] = [];
  const open: Paragraph[] = [];
  let inText = false;
  // <w:tab/> inside <w:tabs> defines tab stops; only a run's <w:tab/> is a character.
  let inTabStops = false;
  let fallbackDepth = 0;
  for (const [, closing, tag, attributes, selfClosing, text] of xml.matchAll(TOKEN)) {
    if (tag === 'mc:Fallback' && !selfClosing) {
      fallbackDepth += closing ? -1 : 1;
      continue;
    }
    if (fallbackDepth > 0) continue;
    const current = open.at(-1);
    if (text !== undefined) {
      if (inText && current) current.text += decodeEntities(text);
      continue;
    }
    const opening = !closing && !selfClosing;
    if (tag === 'w:t') inText = opening;
    else if (tag === 'w:tabs') inTabStops = opening;
    else if (!current) {
      if (tag === 'w:p' && opening) open.push({ text: '', size: 0 });
      else if (tag === 'w:p' && selfClosing) lines.push({ text: '', size: 0 });
    } else if (tag === 'w:tab' && selfClosing && !inTabStops) current.text += '\t';
    else if ((tag === 'w:br' || tag === 'w:cr') && selfClosing) current.text += '\n';
    else if (tag === 'w:noBreakHyphen') current.text += '-';
    else if (tag === 'w:sz' && selfClosing)
      current.size = Math.max(current.size, Number(SIZE.exec(attributes ?? '')?.[1] ?? 0));
    else if (tag === 'w:p' && opening) open.push({ text: '', size: 0 });
    else if (tag === 'w:p' && (closing || selfClosing)) {
      if (selfClosing) lines.push({ text: '', size: 0 });
      else lines.push(open.pop()!);
    }
  }
  lines.push(...open.filter((paragraph) => paragraph.text));
  return lines;
}

export const paragraphs = (xml: string): string[] => paragraphRuns(xml).map((paragraph) => paragraph.text);

// The name is set larger than anything else near the top; a sidebar cell or text box may come first in the XML.
const TITLE_SIZE_FACTOR = 1.5;
const TITLE_SEARCH = 40;

/** The one paragraph set clearly larger than the rest near the top moves first (reading order by emphasis). */
export function largestFirst(lines: readonly Paragraph[]): Paragraph[] {
  const sized = lines.filter((line) => line.size > 0 && line.text.trim());
  if (!sized.length) return [...lines];
  const sizes = sized.map((line) => line.size).sort((a, b) => a - b);
  const median = sizes[Math.floor(sizes.length / 2)]!;
  const top = lines.slice(0, TITLE_SEARCH);
  const largest = Math.max(...top.map((line) => line.size));
  const title = top.filter((line) => line.text.trim() && line.size === largest);
  if (largest < median * TITLE_SIZE_FACTOR || title.length !== 1) return [...lines];
  return [title[0]!, ...lines.filter((line) => line !== title[0])];
}

const NAMED_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (entity, body: string) => {
    if (body[0] !== '#') return NAMED_ENTITIES[body] ?? entity;
    const code = body[1] === 'x' || body[1] === 'X' ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
    return code <= 0x10ffff ? String.fromCodePoint(code) : entity;
  });
}
