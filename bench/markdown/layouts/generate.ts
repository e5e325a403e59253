/**
 * Regenerates the layouts corpus into bench/markdown/layouts/files/: <name>.pdf, the truth
 * <name>.md and <name>.json (pages, first words of each page, running lines), as the main corpus.
 *
 *   npx tsx bench/markdown/layouts/generate.ts
 *
 * Needs ghostscript (ps2pdf, gs), LibreOffice (soffice) and poppler-utils (pdftotext, pdfinfo).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateSync } from 'node:zlib';
import type { TruthMeta } from '../corpus/generate.js';
import { isOrderedMarker, toMarkdown, type Block, type ListItem } from '../corpus/model.js';
import { renderFlow } from './compose.js';
import { LAYOUTS, type LayoutEntry } from './documents.js';

export const LAYOUTS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'files');

const PAGE_START_WORDS = 4;

function run(command: string, args: string[]): string {
  return execFileSync(command, args, {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 256 * 1024 * 1024,
  });
}

function escapeHtml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

function htmlList(items: readonly ListItem[], ordered: boolean, start: number): string {
  const tag = ordered ? 'ol' : 'ul';
  let out = `<${tag}${start !== 1 ? ` start="${start}"` : ''}>`;
  items.forEach((item, i) => {
    if (item.level > 0) return;
    const children: ListItem[] = [];
    for (let j = i + 1; j < items.length && items[j]!.level > 0; j++)
      children.push({ ...items[j]!, level: items[j]!.level - 1 });
    out += `<li>${escapeHtml(item.text)}${children.length ? htmlList(children, ordered, 1) : ''}</li>`;
  });
  return `${out}</${tag}>`;
}

function htmlTable(block: Block & { kind: 'table' }): string {
  const spans = block.spans ?? [];
  const headerRows = block.headerRows ?? 1;
  const covered = (r: number, c: number) =>
    spans.some(
      (s) => r >= s.row && r < s.row + s.rows && c >= s.col && c < s.col + s.cols && (r !== s.row || c !== s.col),
    );
  const rows = block.rows.map((row, r) => {
    const cells = row.flatMap((cell, c) => {
      if (covered(r, c)) return [];
      const span = spans.find((s) => s.row === r && s.col === c);
      const tag = r < headerRows ? 'th' : 'td';
      const rowspan = span && span.rows > 1 ? ` rowspan="${span.rows}"` : '';
      const colspan = span && span.cols > 1 ? ` colspan="${span.cols}"` : '';
      const attributes = `${rowspan}${colspan}`;
      return [`<${tag}${attributes}>${escapeHtml(cell)}</${tag}>`];
    });
    return `<tr>${cells.join('')}</tr>`;
  });
  return `<table border="1" cellpadding="4">${rows.join('\n')}</table>`;
}

function toHtml(blocks: readonly Block[]): string {
  const body = blocks.map((block) => {
    switch (block.kind) {
      case 'heading':
        return `<h${block.level}>${escapeHtml(block.text)}</h${block.level}>`;
      case 'paragraph':
        return `<p>${escapeHtml(block.text)}</p>`;
      case 'list':
        return htmlList(block.items, isOrderedMarker(block.marker), block.start ?? 1);
      case 'table':
        return htmlTable(block);
      default:
        throw new Error(`the html route does not lay out ${block.kind} blocks`);
    }
  });
  return (
    `<!DOCTYPE html><html><head><meta ` +
    `charset="utf-8"><title>corpus</title></head><body>\n${body.join('\n')}\n</body></html>\n`
  );
}

function pageCount(pdf: string): number {
  return Number(/Pages:\s+(\d+)/.exec(run('pdfinfo', [pdf]))?.[1] ?? 0);
}

function pageStartsOf(pdf: string, pages: number): string[] {
  return Array.from({ length: pages }, (_, i) =>
    run('pdftotext', ['-f', String(i + 1), '-l', String(i + 1), pdf, '-'])
      .split(/\s+/)
      .filter(Boolean)
      .slice(0, PAGE_START_WORDS)
      .join(' '),
  );
}

/** An image-only PDF: each page one 8-bit grey image (Flate), nothing else, as a scanner writes. */
export function imagePdf(
  pages: readonly { width: number; height: number; pixels: Buffer }[],
  points: { width: number; height: number },
): Buffer {
  const objects: Buffer[] = [];
  const add = (body: Buffer | string) =>
    objects.push(typeof body === 'string' ? Buffer.from(body, 'latin1') : body) && objects.length;
  const catalog = add('');
  const tree = add('');
  const kids: number[] = [];
  for (const page of pages) {
    const data = deflateSync(page.pixels, { level: 9 });
    const image = add(
      Buffer.concat([
        Buffer.from(
          `<< /Type /XObject /Subtype /Image /Width ${page.width} /Height ${page.height} /ColorSpace /DeviceGray ` +
            `/BitsPerComponent 8 /Filter /FlateDecode /Length ${data.length} >>\nstream\n`,
          'latin1',
        ),
        data,
        Buffer.from('\nendstream', 'latin1'),
      ]),
    );
    const content = `q ${points.width} 0 0 ${points.height} 0 0 cm /Im0 Do Q`;
    const stream = add(`<< /Length ${content.length} >>\nstream\n${content}\nendstream`);
    kids.push(
      add(
        `<< /Type /Page /Parent ${tree} 0 R /MediaBox [0 0 ${points.width} ${points.height}] /Resources << /XObject ` +
          `<< /Im0 ${image} 0 R >> >> /Contents ${stream} 0 R >>`,
      ),
    );
  }
  objects[catalog - 1] = Buffer.from(`<< /Type /Catalog /Pages ${tree} 0 R >>`, 'latin1');
  objects[tree - 1] = Buffer.from(
    `<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(' ')}] /Count ${kids.length} >>`,
    'latin1',
  );
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  const offsets: number[] = [];
  let length = parts[0]!.length;
  objects.forEach((body, i) => {
    offsets.push(length);
    const object = Buffer.concat([
      Buffer.from(`${i + 1} 0 obj\n`, 'latin1'),
      body,
      Buffer.from('\nendobj\n', 'latin1'),
    ]);
    parts.push(object);
    length += object.length;
  });
  const xref = [
    `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`,
    ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`),
  ].join('');
  parts.push(
    Buffer.from(
      `${xref}trailer\n<< /Size ${objects.length + 1} /Root ${catalog} 0 R >>\nstartxref\n${length}\n%%EOF\n`,
      'latin1',
    ),
  );
  return Buffer.concat(parts);
}

/** Rasterises a PDF page by page into grey PGM images (anti-aliased, as a scanner's output). */
export function rasterise(
  pdf: string,
  dpi: number,
  work: string,
  pages: number,
): { width: number; height: number; pixels: Buffer }[] {
  return Array.from({ length: pages }, (_, i) => {
    const out = join(work, `page-${i + 1}.pgm`);
    run('gs', [
      '-q',
      '-dNOPAUSE',
      '-dBATCH',
      '-dSAFER',
      '-sDEVICE=pgmraw',
      `-r${dpi}`,
      '-dTextAlphaBits=4',
      '-dGraphicsAlphaBits=4',
      `-dFirstPage=${i + 1}`,
      `-dLastPage=${i + 1}`,
      `-sOutputFile=${out}`,
      pdf,
    ]);
    const bytes = readFileSync(out);
    const header = /^P5\s+(?:#[^\n]*\n\s*)*(\d+)\s+(\d+)\s+255\s/.exec(bytes.subarray(0, 256).toString('latin1'));
    if (!header) throw new Error(`unexpected PGM header from gs: ${bytes.subarray(0, 40).toString('latin1')}`);
    return { width: Number(header[1]), height: Number(header[2]), pixels: bytes.subarray(header[0].length) };
  });
}

function generate(entry: LayoutEntry, work: string): TruthMeta {
  const target = join(LAYOUTS_DIR, `${entry.name}.pdf`);
  writeFileSync(join(LAYOUTS_DIR, `${entry.name}.md`), toMarkdown(entry.blocks));
  const route = entry.route;
  if (route.kind === 'html') {
    const html = join(work, `${entry.name}.html`);
    writeFileSync(html, toHtml(entry.blocks));
    run('soffice', [
      '--headless',
      '--infilter=HTML (StarWriter)',
      '--convert-to',
      'pdf:writer_pdf_Export',
      '--outdir',
      work,
      html,
    ]);
    writeFileSync(target, readFileSync(join(work, `${entry.name}.pdf`)));
    const pages = pageCount(target);
    return { route: 'html', pages, pageStarts: pageStartsOf(target, pages), runningLines: [] };
  }
  const result = renderFlow(entry.blocks, route.layout);
  const ps = join(work, `${entry.name}.ps`);
  writeFileSync(ps, result.postscript);
  const meta = {
    route: route.kind,
    pages: result.pages,
    pageStarts: result.pageStarts,
    runningLines: result.runningLines,
  };
  if (route.kind === 'flow') {
    run('ps2pdf', [ps, target]);
    return meta;
  }
  const vector = join(work, `${entry.name}.pdf`);
  run('ps2pdf', [ps, vector]);
  const paper = route.layout.paper === 'a4' ? { width: 595, height: 842 } : { width: 612, height: 792 };
  writeFileSync(target, imagePdf(rasterise(vector, route.dpi, work, result.pages), paper));
  return meta;
}

function main(): void {
  mkdirSync(LAYOUTS_DIR, { recursive: true });
  const work = mkdtempSync(join(tmpdir(), 'md-layouts-'));
  const only = process.argv.slice(2);
  try {
    for (const entry of LAYOUTS) {
      if (only.length && !only.includes(entry.name)) continue;
      const meta = generate(entry, work);
      writeFileSync(join(LAYOUTS_DIR, `${entry.name}.json`), `${JSON.stringify(meta, null, 2)}\n`);
      console.log(`${entry.name}: ${meta.pages} page(s) via ${meta.route}`);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
