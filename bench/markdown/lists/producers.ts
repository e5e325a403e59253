/**
 * Writes a list document in each producer's own language and lets that producer lay it out:
 * pdflatex (article, `\twocolumn`), groff -ms (.IP/.RS, `.2C`) through gropdf, HTML printed by
 * headless Chromium (CSS list-style-type, `columns: 2`), and pandoc Markdown -> DOCX/ODT ->
 * LibreOffice. Line breaks, column and page breaks, indents and marker glyphs are the producers'.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  BULLET_GLYPH,
  type BulletStyle,
  type DocBlock,
  type ListDocument,
  type ListModel,
  type OrderedStyle,
  orderedLabel,
} from './documents.js';

const TIMEOUT_MS = 120_000;

function run(command: string, args: string[], cwd: string, input?: string): string {
  return execFileSync(command, args, {
    cwd,
    input,
    encoding: 'utf8',
    timeout: TIMEOUT_MS,
    killSignal: 'SIGKILL',
    stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    maxBuffer: 64 * 1024 * 1024,
  });
}

/** Renders the document into `work` and returns the PDF's path. */
export function render(document: ListDocument, work: string): string {
  switch (document.producer) {
    case 'latex':
      return renderLatex(document, work);
    case 'groff':
      return renderGroff(document, work);
    case 'chromium':
      return renderChromium(document, work);
    case 'docx':
    case 'odt':
      return renderOffice(document, work);
  }
}

// --- LaTeX -------------------------------------------------------------------------------------

const LATEX_BULLETS: Partial<Record<BulletStyle, string>> = {
  bullet: '\\textbullet',
  dash: '\\textendash',
  emdash: '\\textemdash',
  star: '$\\ast$',
  triangle: '$\\triangleright$',
  circle: '$\\circ$',
  check: '\\checkmark',
};

const LATEX_COUNTERS = ['enumi', 'enumii', 'enumiii'];
const LATEX_BULLET_LABELS = ['\\labelitemi', '\\labelitemii', '\\labelitemiii'];

function latexCounterLabel(style: OrderedStyle, counter: string): string {
  const format: Record<OrderedStyle, string> = {
    decimal: `\\arabic{${counter}}.`,
    'decimal-paren': `\\arabic{${counter}})`,
    'paren-decimal': `(\\arabic{${counter}})`,
    'lower-alpha': `\\alph{${counter}}.`,
    'lower-alpha-paren': `\\alph{${counter}})`,
    'paren-lower-alpha': `(\\alph{${counter}})`,
    'upper-alpha': `\\Alph{${counter}}.`,
    'lower-roman': `\\roman{${counter}}.`,
    'upper-roman': `\\Roman{${counter}}.`,
  };
  return format[style];
}

/** LaTeX counts enumerate and itemize nesting apart (labels and counters are per kind and level). */
function latexList(list: ListModel, depth: { enumerate: number; itemize: number }): string {
  const lines: string[] = [];
  // A top-level "(a)" list is written with explicit labels, \item[(a)], as authors often do.
  const explicit = list.ordered && depth.enumerate + depth.itemize === 0 && list.style === 'paren-lower-alpha';
  if (explicit) lines.push('\\begin{itemize}');
  else if (list.ordered) {
    const counter = LATEX_COUNTERS[depth.enumerate]!;
    lines.push(
      '\\begin{enumerate}',
      `\\renewcommand{\\label${counter}}{${latexCounterLabel(list.style as OrderedStyle, counter)}}`,
      `\\setcounter{${counter}}{${list.start - 1}}`,
    );
  } else
    lines.push(
      '\\begin{itemize}',
      `\\renewcommand{${LATEX_BULLET_LABELS[depth.itemize]}}{${LATEX_BULLETS[list.style as BulletStyle]}}`,
    );
  list.items.forEach((item, i) => {
    const label = explicit ? `[${orderedLabel('paren-lower-alpha', list.start + i)}]` : '';
    lines.push(`\\item${label} ${item.text}`);
    if (item.second) lines.push('\\par', item.second);
    const inner =
      list.ordered && !explicit
        ? { ...depth, enumerate: depth.enumerate + 1 }
        : { ...depth, itemize: depth.itemize + 1 };
    if (item.children) lines.push(latexList(item.children, inner));
  });
  lines.push(list.ordered && !explicit ? '\\end{enumerate}' : '\\end{itemize}');
  return lines.join('\n');
}

function renderLatex(document: ListDocument, work: string): string {
  const options = document.columns === 2 ? '10pt,twocolumn' : '11pt';
  const body = document.blocks.map((block) => {
    if (block.kind === 'title') return `{\\LARGE\\bfseries ${block.text}\\par}\\bigskip`;
    if (block.kind === 'section') return `\\section{${block.text}}`;
    if (block.kind === 'paragraph') return block.text;
    return latexList(block.list, { enumerate: 0, itemize: 0 });
  });
  const source = [
    `\\documentclass[${options}]{article}`,
    '\\usepackage{amssymb}',
    '\\begin{document}',
    ...body.map((b) => `${b}\n`),
    '\\end{document}',
    '',
  ].join('\n');
  writeFileSync(join(work, `${document.name}.tex`), source);
  run('pdflatex', ['-interaction=nonstopmode', '-halt-on-error', `${document.name}.tex`], work);
  return join(work, `${document.name}.pdf`);
}

// --- groff -ms ---------------------------------------------------------------------------------

const GROFF_BULLETS: Partial<Record<BulletStyle, string>> = {
  bullet: '\\(bu',
  dash: '\\(en',
  emdash: '\\(em',
  star: '\\(**',
  arrow: '\\(->',
};

function groffList(list: ListModel): string[] {
  const labels = list.items.map((_, i) =>
    list.ordered ? orderedLabel(list.style as OrderedStyle, list.start + i) : GROFF_BULLETS[list.style as BulletStyle]!,
  );
  // One text indent for the whole list: the widest label and a little room.
  const indent = list.ordered ? Math.max(...labels.map((l) => l.length)) + 1.5 : 2;
  const lines: string[] = [];
  list.items.forEach((item, i) => {
    lines.push(`.IP "${labels[i]}" ${indent}n`, item.text);
    if (item.second) lines.push(`.IP "" ${indent}n`, item.second);
    if (item.children) lines.push('.RS', ...groffList(item.children), '.RE');
  });
  return lines;
}

function renderGroff(document: ListDocument, work: string): string {
  const lines: string[] = [];
  for (const block of document.blocks) {
    if (block.kind === 'title') {
      lines.push('.TL', block.text, '.LP');
      if (document.columns === 2) lines.push('.2C');
    } else if (block.kind === 'section') lines.push('.NH 1', block.text);
    else if (block.kind === 'paragraph') lines.push('.PP', block.text);
    else lines.push(...groffList(block.list));
  }
  const source = `${lines.join('\n')}\n`;
  writeFileSync(join(work, `${document.name}.ms`), source);
  const pdf = join(work, `${document.name}.pdf`);
  writeFileSync(
    pdf,
    execFileSync('groff', ['-ms', '-Tpdf', '-P-pa4', '-dpaper=a4', `${document.name}.ms`], {
      cwd: work,
      timeout: TIMEOUT_MS,
    }),
  );
  return pdf;
}

// --- HTML through Chromium ----------------------------------------------------------------------

const escapeHtml = (text: string) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;');

function htmlList(list: ListModel): string {
  const tag = list.ordered ? 'ol' : 'ul';
  const start = list.ordered && list.start !== 1 ? ` start="${list.start}"` : '';
  const items = list.items.map((item) => {
    const second = item.second ? `<p>${escapeHtml(item.second)}</p>` : '';
    const children = item.children ? htmlList(item.children) : '';
    return `<li>${escapeHtml(item.text)}${second}${children}</li>`;
  });
  return `<${tag} class="s-${list.style}"${start}>\n${items.join('\n')}\n</${tag}>`;
}

function htmlBlock(block: DocBlock): string {
  if (block.kind === 'title') return `<h1>${escapeHtml(block.text)}</h1>`;
  if (block.kind === 'section') return `<h2>${block.number} ${escapeHtml(block.text)}</h2>`;
  if (block.kind === 'paragraph') return `<p>${escapeHtml(block.text)}</p>`;
  return htmlList(block.list);
}

/** Bullets are CSS string markers (text in the PDF); Chromium draws disc/circle/square as shapes, with no text. */
const HTML_STYLE = `
@page { size: A4; margin: 2cm; }
body { font: 10.5pt/1.4 'DejaVu Serif', serif; }
h1 { font-size: 18pt; } h2 { font-size: 13pt; margin: 1em 0 0.4em; }
.columns { column-count: 2; column-gap: 1cm; }
li p { margin: 0.3em 0 0; }
@counter-style paren-decimal { system: extends decimal; prefix: '('; suffix: ') '; }
${Object.entries(BULLET_GLYPH)
  .map(([style, glyph]) => `ul.s-${style} { list-style-type: '${glyph} '; }`)
  .join('\n')}
ol.s-decimal { list-style-type: decimal; } ol.s-lower-alpha { list-style-type: lower-alpha; }
ol.s-upper-alpha { list-style-type: upper-alpha; } ol.s-lower-roman { list-style-type: lower-roman; }
ol.s-upper-roman { list-style-type: upper-roman; } ol.s-paren-decimal { list-style-type: paren-decimal; }
`;

function renderChromium(document: ListDocument, work: string): string {
  const [title, ...rest] = document.blocks.map(htmlBlock);
  const body =
    document.columns === 2
      ? `${title}\n<div class="columns">\n${rest.join('\n')}\n</div>`
      : [title, ...rest].join('\n');
  const html = join(work, `${document.name}.html`);
  writeFileSync(
    html,
    `<!DOCTYPE html><html><head><meta ` +
      `charset="utf-8"><style>${HTML_STYLE}</style></head><body>\n${body}\n</body></html>\n`,
  );
  const pdf = join(work, `${document.name}.pdf`);
  run(
    'chromium',
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-pdf-header-footer',
      `--print-to-pdf=${pdf}`,
      pathToFileURL(html).href,
    ],
    work,
  );
  return pdf;
}

// --- pandoc -> DOCX / ODT -> LibreOffice --------------------------------------------------------

function pandocMarker(style: OrderedStyle, n: number): string {
  const label = orderedLabel(style, n);
  // Pandoc wants two spaces after a capital letter and period (else "A. Smith" would start a list).
  return /^[A-Z]+\.$/.test(label) ? `${label} ` : label;
}

function pandocList(list: ListModel, indent: string, lines: string[]): void {
  list.items.forEach((item, i) => {
    const marker = list.ordered ? pandocMarker(list.style as OrderedStyle, list.start + i) : '-';
    const inner = indent + ' '.repeat(marker.length + 1);
    lines.push(`${indent}${marker} ${item.text}`);
    if (item.second) lines.push('', `${inner}${item.second}`);
    if (item.children) {
      lines.push('');
      pandocList(item.children, inner, lines);
    }
    if (item.second || item.children) lines.push('');
  });
}

function renderOffice(document: ListDocument, work: string): string {
  const out: string[] = [];
  let previousList = false;
  for (const block of document.blocks) {
    // Two lists in a row would merge into one (and renumber): an empty comment keeps them apart.
    if (block.kind === 'list' && previousList) out.push('<!-- -->');
    previousList = block.kind === 'list';
    if (block.kind === 'title') out.push(`# ${block.text}`);
    else if (block.kind === 'section') out.push(`## ${block.number} ${block.text}`);
    else if (block.kind === 'paragraph') out.push(block.text);
    else {
      const lines: string[] = [];
      pandocList(block.list, '', lines);
      out.push(lines.join('\n').replace(/\n{3,}/g, '\n\n'));
    }
  }
  const source = join(work, `${document.name}.md`);
  writeFileSync(source, `${out.join('\n\n')}\n`);
  const office = join(work, `${document.name}.${document.producer}`);
  run('pandoc', [source, '-f', 'markdown', '-o', office], work);
  // A profile of our own: other LibreOffice instances on the machine do not block this one.
  const profile = pathToFileURL(join(work, 'lo-profile')).href;
  run(
    'soffice',
    [`-env:UserInstallation=${profile}`, '--headless', '--convert-to', 'pdf', '--outdir', work, office],
    work,
  );
  return join(work, `${document.name}.pdf`);
}
