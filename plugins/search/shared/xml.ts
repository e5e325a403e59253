/**
 * Just enough XML reading for document bodies: a tokenizer over tags and text, and the text of
 * each paragraph of a WordprocessingML or OpenDocument body. No DTDs and no namespace resolution:
 * both formats use fixed prefixes (w:, text:, table:) in practice.
 */

export type XmlToken =
  | { type: 'open'; name: string; attributes: string; selfClosing: boolean }
  | { type: 'close'; name: string }
  | { type: 'text'; text: string };

// Comments, CDATA, declarations / processing instructions, tags (attribute values may hold '>'), text.
const TOKEN = new RegExp(
  String.raw`<!--[\s\S]*?-->|<!\[CDATA\[([\s\S]*?)\]\]>|<[?!][^>]*>|<(\/?)([^\s/>]+)((?:[^>"']|"[^"]*"|` +
    String.raw`'[^']*')*?)(\/?)>|([^<]+)`,
  'g',
);

const NAMED_ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|\w+);/g, (whole, name: string) => {
    if (name.startsWith('#')) {
      const code = name[1] === 'x' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED_ENTITIES[name] ?? whole;
  });
}

export function* xmlTokens(xml: string): Generator<XmlToken> {
  for (const m of xml.matchAll(TOKEN)) {
    const [, cdata, slash, name, attributes, selfClosing, text] = m;
    if (cdata !== undefined) yield { type: 'text', text: cdata };
    else if (text !== undefined) yield { type: 'text', text: decodeEntities(text) };
    else if (name !== undefined) {
      if (slash) yield { type: 'close', name };
      else yield { type: 'open', name, attributes: attributes ?? '', selfClosing: selfClosing === '/' };
    }
  }
}

/** The value of attribute `name` in a tag's attribute text. */
export function attribute(attributes: string, name: string): string | undefined {
  const escaped = name.replace(/[.:]/g, '\\$&');
  const m = new RegExp(`(?:^|\\s)${escaped}\\s*=\\s*(?:"([^"]*)"|'([^']*)')`).exec(attributes);
  const value = m?.[1] ?? m?.[2];
  return value === undefined ? undefined : decodeEntities(value);
}

export interface BodyDialect {
  /** Elements that are paragraphs (headings included). */
  paragraphs: ReadonlySet<string>;
  /** Elements whose text is content; undefined when all text inside a paragraph is. */
  textElements?: ReadonlySet<string>;
  /** Empty elements standing for characters (tab, line break, repeated spaces). */
  characters(name: string, attributes: string): string | undefined;
}

/** WordprocessingML (word/document.xml): text lives in w:t only (w:delText and field codes are not shown). */
export const WORD: BodyDialect = {
  paragraphs: new Set(['w:p']),
  textElements: new Set(['w:t']),
  characters: (name) => ({ 'w:tab': '\t', 'w:br': '\n', 'w:cr': '\n', 'w:noBreakHyphen': '-' })[name],
};

/** OpenDocument (content.xml): text:s carries a count of spaces in text:c. */
export const OPEN_DOCUMENT: BodyDialect = {
  paragraphs: new Set(['text:p', 'text:h']),
  characters(name, attributes) {
    if (name === 'text:tab') return '\t';
    if (name === 'text:line-break') return '\n';
    if (name === 'text:s') return ' '.repeat(Math.min(Number(attribute(attributes, 'text:c') ?? 1) || 1, 1000));
    return undefined;
  },
};

/**
 * The text of every paragraph, in the order the paragraphs end. A paragraph nested in another
 * (a text box, a footnote) is its own paragraph and is not repeated in the outer one.
 */
export function* paragraphTexts(xml: string, dialect: BodyDialect): Generator<string> {
  const open: string[] = [];
  let textDepth = 0;
  for (const token of xmlTokens(xml)) {
    if (token.type === 'open') {
      if (dialect.paragraphs.has(token.name)) {
        if (token.selfClosing) yield '';
        else open.push('');
      } else if (open.length > 0) {
        if (token.selfClosing) {
          const chars = dialect.characters(token.name, token.attributes);
          if (chars !== undefined) open[open.length - 1] += chars;
        } else if (dialect.textElements?.has(token.name)) textDepth += 1;
      }
    } else if (token.type === 'close') {
      if (dialect.paragraphs.has(token.name)) {
        const text = open.pop();
        if (text !== undefined) yield text;
      } else if (dialect.textElements?.has(token.name)) textDepth = Math.max(0, textDepth - 1);
    } else if (open.length > 0 && (dialect.textElements === undefined || textDepth > 0)) {
      open[open.length - 1] += token.text;
    }
  }
}
