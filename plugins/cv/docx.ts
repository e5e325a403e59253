/** Paragraph text of a DOCX: headers first (CVs often put name and contact there), then the body. */
import { unzipSync } from 'fflate';
import { PluginError } from '../../core/contract/index.js';
import { MB } from '../../schema/index.js';

// A CV's document.xml is a few hundred KB; anything this big is not one (or is a zip bomb).
const MAX_PART_BYTES = 50 * MB;
const PART = /^word\/(document|header\d*)\.xml$/;

const unreadable = (cause?: unknown) =>
  new PluginError('Could not read this DOCX: the file is damaged or is not a Word document', cause ? { cause } : undefined);

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
  return [...headers, body].map((xml) => paragraphs(new TextDecoder().decode(xml)).join('\n')).join('\n');
}

const TOKEN = /<(\/?)(w:[A-Za-z]+)\b[^>]*?(\/?)>|<[^>]*>|([^<]+)/g;

/** WordprocessingML paragraphs as lines: text runs joined, tabs and breaks kept. */
export function paragraphs(xml: string): string[] {
  const lines: string[] = [];
  let current = '';
  let inText = false;
  // <w:tab/> inside <w:tabs> defines tab stops; only a run's <w:tab/> is a character.
  let inTabStops = false;
  for (const [, closing, tag, selfClosing, text] of xml.matchAll(TOKEN)) {
    if (text !== undefined) {
      if (inText) current += decodeEntities(text);
      continue;
    }
    const opening = !closing && !selfClosing;
    if (tag === 'w:t') inText = opening;
    else if (tag === 'w:tabs') inTabStops = opening;
    else if (tag === 'w:tab' && selfClosing && !inTabStops) current += '\t';
    else if ((tag === 'w:br' || tag === 'w:cr') && selfClosing) current += '\n';
    else if (tag === 'w:noBreakHyphen') current += '-';
    else if (tag === 'w:p' && (closing || selfClosing)) {
      lines.push(current);
      current = '';
    }
  }
  if (current) lines.push(current);
  return lines;
}

const NAMED_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (entity, body: string) => {
    if (body[0] !== '#') return NAMED_ENTITIES[body] ?? entity;
    const code = body[1] === 'x' || body[1] === 'X' ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
    return code <= 0x10ffff ? String.fromCodePoint(code) : entity;
  });
}
