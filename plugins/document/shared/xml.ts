/**
 * A small XML reader for the parts of OOXML and ODF packages (slides, sheets): elements with
 * their attributes and text, nothing else (no DTDs: a DOCTYPE is refused, so no entity expansion).
 * The project has no XML parser among its dependencies; this covers what well-formed office
 * parts hold.
 */
export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlNode[];
}
export type XmlNode = XmlElement | string;

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decode(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-zA-Z]+);/g, (whole, name: string) => {
    if (name[0] === '#') {
      const code = name[1] === 'x' ? Number.parseInt(name.slice(2), 16) : Number.parseInt(name.slice(1), 10);
      return Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[name] ?? whole;
  });
}

const ATTRIBUTE = /([^\s=/>]+)\s*=\s*("([^"]*)"|'([^']*)')/g;

/** The document element of `xml`; throws on a DOCTYPE or markup it cannot read. */
export function parseXml(xml: string): XmlElement {
  if (/<!DOCTYPE/i.test(xml)) throw new Error('XML with a DOCTYPE is not read');
  const root: XmlElement = { name: '#root', attrs: {}, children: [] };
  const stack: XmlElement[] = [root];
  let at = 0;
  while (at < xml.length) {
    const open = xml.indexOf('<', at);
    const text = xml.slice(at, open === -1 ? xml.length : open);
    if (text) stack[stack.length - 1]!.children.push(decode(text));
    if (open === -1) break;
    if (xml.startsWith('<!--', open)) {
      at = xml.indexOf('-->', open) + 3;
      if (at < 3) throw new Error('unterminated comment');
      continue;
    }
    if (xml.startsWith('<![CDATA[', open)) {
      const end = xml.indexOf(']]>', open);
      if (end === -1) throw new Error('unterminated CDATA');
      stack[stack.length - 1]!.children.push(xml.slice(open + 9, end));
      at = end + 3;
      continue;
    }
    const close = xml.indexOf('>', open);
    if (close === -1) throw new Error('unterminated tag');
    const tag = xml.slice(open + 1, close);
    at = close + 1;
    if (tag.startsWith('?') || tag.startsWith('!')) continue;
    if (tag.startsWith('/')) {
      if (stack.length > 1) stack.pop();
      continue;
    }
    const selfClosing = tag.endsWith('/');
    const body = selfClosing ? tag.slice(0, -1) : tag;
    const space = body.search(/\s/);
    const name = space === -1 ? body : body.slice(0, space);
    const attrs: Record<string, string> = {};
    if (space !== -1)
      for (const match of body.slice(space).matchAll(ATTRIBUTE)) attrs[match[1]!] = decode(match[3] ?? match[4] ?? '');
    const element: XmlElement = { name, attrs, children: [] };
    stack[stack.length - 1]!.children.push(element);
    if (!selfClosing) stack.push(element);
  }
  const first = root.children.find((child): child is XmlElement => typeof child !== 'string');
  if (!first) throw new Error('no XML element');
  return first;
}

export const elements = (node: XmlElement, name?: string): XmlElement[] =>
  node.children.filter((c): c is XmlElement => typeof c !== 'string' && (name === undefined || c.name === name));

export const child = (node: XmlElement | undefined, name: string): XmlElement | undefined =>
  node ? elements(node, name)[0] : undefined;

/** Every descendant element named `name`, in document order (not descending into matches). */
export function descendants(node: XmlElement, name: string): XmlElement[] {
  const out: XmlElement[] = [];
  for (const c of elements(node)) {
    if (c.name === name) out.push(c);
    else out.push(...descendants(c, name));
  }
  return out;
}

/** The text of the elements named `textElement` below `node` (a:t in DrawingML), concatenated. */
export function textOf(node: XmlElement, textElement: string): string {
  let out = '';
  for (const c of node.children) {
    if (typeof c === 'string') continue;
    if (c.name === textElement) out += c.children.filter((t) => typeof t === 'string').join('');
    else out += textOf(c, textElement);
  }
  return out;
}
