/**
 * Truth for the structure bench, read straight from each file's own XML (independently of the
 * readers: DOCX is read by pandoc in the product, here from WordprocessingML; PPTX tables and
 * titles from PresentationML; XLSX cells from SpreadsheetML with its shared strings).
 */
import { readFile } from 'node:fs/promises';
import { unzipSync } from 'fflate';
import { parseXml, type XmlElement } from '../../plugins/document/shared/xml.js';

/** One structural item: a heading with its level, a list item, or a table cell, by its text. */
export type Item = string;
/**
 * Text compared case- and space-insensitively; a number by its value to 12 significant digits
 * (0.1 = 0.10000000000000001).
 */
export const norm = (text: string) => {
  const t = text.replace(/\s+/g, ' ').trim().toLowerCase();
  return /^-?\d+(\.\d+)?(e[-+]?\d+)?$/.test(t) ? String(Number(Number(t).toPrecision(12))) : t;
};

const elementsOf = (node: XmlElement, name?: string) =>
  node.children.filter((c): c is XmlElement => typeof c !== 'string' && (name === undefined || c.name === name));
function descendants(node: XmlElement, name: string): XmlElement[] {
  const out: XmlElement[] = [];
  for (const c of elementsOf(node)) {
    if (c.name === name) out.push(c);
    out.push(...descendants(c, name));
  }
  return out;
}
function text(node: XmlElement, textName: string): string {
  return node.children
    .map((c) =>
      typeof c === 'string'
        ? ''
        : c.name === textName
          ? c.children.filter((t) => typeof t === 'string').join('')
          : text(c, textName),
    )
    .join('');
}

async function parts(file: string): Promise<Record<string, string>> {
  const zip = unzipSync(new Uint8Array(await readFile(file)), { filter: (f) => f.name.endsWith('.xml') });
  const decoder = new TextDecoder();
  return Object.fromEntries(Object.entries(zip).map(([name, bytes]) => [name, decoder.decode(bytes)]));
}

/** DOCX: headings (paragraph styles named "heading N", or an outline level), numbered paragraphs, table cells. */
export async function docxTruth(file: string): Promise<{ headings: Item[]; lists: Item[]; cells: Item[] }> {
  const xml = await parts(file);
  const levels = new Map<string, number>();
  if (xml['word/styles.xml']) {
    for (const style of descendants(parseXml(xml['word/styles.xml']), 'w:style')) {
      const name = elementsOf(style, 'w:name')[0]?.attrs['w:val']?.toLowerCase() ?? '';
      const heading = /^heading (\d)$/.exec(name);
      const outline = descendants(style, 'w:outlineLvl')[0]?.attrs['w:val'];
      const level = heading
        ? Number(heading[1])
        : outline !== undefined && Number(outline) < 9
          ? Number(outline) + 1
          : 0;
      if (level && style.attrs['w:styleId']) levels.set(style.attrs['w:styleId'], level);
    }
  }
  const body = parseXml(xml['word/document.xml'] ?? '<w:document/>');
  const headings: Item[] = [];
  const lists: Item[] = [];
  const cells: Item[] = [];
  const inTable = new Set<XmlElement>();
  for (const tc of descendants(body, 'w:tc')) {
    for (const p of descendants(tc, 'w:p')) inTable.add(p);
    const t = norm(
      descendants(tc, 'w:p')
        .map((p) => text(p, 'w:t'))
        .join(' '),
    );
    if (t) cells.push(`cell:${t}`);
  }
  for (const p of descendants(body, 'w:p')) {
    if (inTable.has(p)) continue;
    const t = norm(text(p, 'w:t'));
    if (!t) continue;
    const pPr = elementsOf(p, 'w:pPr')[0];
    const styleId = pPr ? elementsOf(pPr, 'w:pStyle')[0]?.attrs['w:val'] : undefined;
    const level = styleId ? levels.get(styleId) : undefined;
    if (level) headings.push(`h${Math.min(6, level)}:${t}`);
    else if (pPr && elementsOf(pPr, 'w:numPr').some((n) => elementsOf(n, 'w:numId')[0]?.attrs['w:val'] !== '0'))
      lists.push(`li:${t}`);
  }
  return { headings, lists, cells };
}

/** PPTX: slide titles and table cells (a merged place's covered cells left out). */
export async function pptxTruth(file: string): Promise<{ titles: Item[]; cells: Item[] }> {
  const xml = await parts(file);
  const titles: Item[] = [];
  const cells: Item[] = [];
  for (const [name, source] of Object.entries(xml)) {
    if (!/^ppt\/slides\/slide\d+\.xml$/.test(name)) continue;
    const slide = parseXml(source);
    for (const sp of descendants(slide, 'p:sp')) {
      const ph = descendants(sp, 'p:ph')[0];
      if (ph && (ph.attrs.type === 'title' || ph.attrs.type === 'ctrTitle')) {
        const t = norm(
          descendants(sp, 'a:p')
            .map((p) => text(p, 'a:t'))
            .join(' '),
        );
        if (t) titles.push(`title:${t}`);
      }
    }
    for (const tc of descendants(slide, 'a:tc')) {
      if (tc.attrs.hMerge === '1' || tc.attrs.vMerge === '1') continue;
      const t = norm(
        descendants(tc, 'a:p')
          .map((p) => text(p, 'a:t'))
          .join(' '),
      );
      if (t) cells.push(`cell:${t}`);
    }
  }
  return { titles, cells };
}

/** XLSX: every non-empty cell's text (shared strings resolved, inline strings, numbers as written). */
export async function xlsxTruth(file: string): Promise<{ cells: Item[] }> {
  const xml = await parts(file);
  const shared = xml['xl/sharedStrings.xml']
    ? elementsOf(parseXml(xml['xl/sharedStrings.xml']), 'si').map((si) => text(si, 't'))
    : [];
  const cells: Item[] = [];
  for (const [name, source] of Object.entries(xml)) {
    if (!/^xl\/worksheets\/sheet\d+\.xml$/.test(name)) continue;
    for (const c of descendants(parseXml(source), 'c')) {
      const v = elementsOf(c, 'v')[0];
      const value = v ? v.children.filter((t) => typeof t === 'string').join('') : '';
      const t =
        c.attrs.t === 's'
          ? (shared[Number(value)] ?? '')
          : c.attrs.t === 'inlineStr'
            ? text(c, 't')
            : c.attrs.t === 'b'
              ? value === '1'
                ? 'true'
                : 'false'
              : value;
      if (norm(t)) cells.push(`cell:${norm(t)}`);
    }
  }
  return { cells };
}
