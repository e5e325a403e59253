/**
 * Writes a hard-layout document (documents.ts) as the source its producer reads: LaTeX (pdfTeX: booktabs,
 * multirow, longtable, fancyhdr, real footnotes, two columns with `table*`), ODF flat XML (LibreOffice Writer:
 * spanned and covered cells, repeated header rows, a two-column section, footnotes, header and footer) and HTML
 * (a browser: rowspan/colspan, `thead` repeated on each page, CSS columns, notes at the end).
 */
import type { HardBlock, HardDocument, HardTable } from './documents.js';

/** The running head names the series and the title, so the title heading in the body is not a running line. */
export const runningHead = (document: HardDocument) => `Working paper: ${document.title}`;

const latexEscape = (text: string) => text.replace(/([&%$#_{}])/g, '\\$1');
const xmlEscape = (text: string) =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');

/** The span that starts at (row, col), and whether (row, col) is covered by another cell's span. */
function spanAt(table: HardTable, row: number, col: number) {
  const start = table.spans.find((s) => s.row === row && s.col === col);
  const covering = table.spans.find(
    (s) =>
      row >= s.row && row < s.row + s.rows && col >= s.col && col < s.col + s.cols && !(s.row === row && s.col === col),
  );
  return { start, covering };
}

// ---------------------------------------------------------------- LaTeX

function latexColumns(table: HardTable, width: number): string {
  const columns = table.rows[0]!.length;
  const wrapWidth = table.wrapColumns.length ? `${Math.max(3, width - 2.2 * (columns - 1)).toFixed(1)}cm` : '';
  const spec = Array.from({ length: columns }, (_, c) =>
    table.wrapColumns.includes(c) ? `>{\\raggedright\\arraybackslash}p{${wrapWidth}}` : c === 0 ? 'l' : 'r',
  );
  return table.style === 'grid' ? `|${spec.join('|')}|` : spec.join('');
}

function latexRow(table: HardTable, r: number): string {
  const cells: string[] = [];
  const row = table.rows[r]!;
  const header = r < table.headerRows;
  for (let c = 0; c < row.length; c++) {
    const { start, covering } = spanAt(table, r, c);
    if (covering && covering.row === r) continue;
    const text = latexEscape(row[c]!);
    const shown = header && text ? `\\textbf{${text}}` : text;
    const last = c + (start?.cols ?? 1) === row.length;
    if (start && start.cols > 1) {
      const align = table.style === 'grid' ? (c === 0 ? '|c|' : 'c|') : 'c';
      cells.push(`\\multicolumn{${start.cols}}{${align}}{${shown}}`);
    } else if (start && start.rows > 1) cells.push(`\\multirow{${start.rows}}{*}{${shown}}`);
    else cells.push(shown);
    if (last) break;
  }
  return `${cells.join(' & ')} \\\\`;
}

/** The rule drawn under row r: full under a header or in a grid, partial where a row span goes on. */
function latexRuleAfter(table: HardTable, r: number): string {
  const columns = table.rows[0]!.length;
  const last = r === table.rows.length - 1;
  if (table.style === 'booktabs') {
    if (last) return '\\bottomrule';
    if (r === table.headerRows - 1) return '\\midrule';
    if (r < table.headerRows - 1)
      return table.spans
        .filter((s) => s.row === r && s.cols > 1)
        .map((s) => `\\cmidrule(lr){${s.col + 1}-${s.col + s.cols}}`)
        .join(' ');
    return '';
  }
  if (table.style === 'bare') return '';
  if (table.style !== 'grid') return r === table.headerRows - 1 ? '\\hline' : '';
  const open = (c: number) =>
    table.spans.some((s) => s.col <= c && c < s.col + s.cols && s.row <= r && r + 1 < s.row + s.rows);
  const ranges: string[] = [];
  for (let c = 0; c < columns; c++) {
    if (open(c)) continue;
    let end = c;
    while (end + 1 < columns && !open(end + 1)) end++;
    ranges.push(`\\cline{${c + 1}-${end + 1}}`);
    c = end;
  }
  return ranges.length === 1 && ranges[0] === `\\cline{1-${columns}}` ? '\\hline' : ranges.join(' ');
}

function latexTableBody(table: HardTable): string[] {
  return table.rows.map((_, r) => `${latexRow(table, r)} ${latexRuleAfter(table, r)}`.trim());
}

function latexTable(table: HardTable, document: HardDocument): string {
  const width = document.twoColumn && !table.wide ? 8 : 16.5;
  const spec = latexColumns(table, width);
  const top = table.style === 'booktabs' ? '\\toprule' : table.style === 'grid' ? '\\hline' : '';
  const body = latexTableBody(table);
  const note = table.note ? `\n\\par\\smallskip{\\footnotesize ${latexEscape(table.note)}\\par}` : '';
  if (document.layout === 'continued') {
    const head = body.slice(0, table.headerRows).join('\n');
    return [
      `\\begin{longtable}{${spec}}`,
      table.caption ? `\\caption{${latexEscape(table.caption)}}\\\\` : '',
      top,
      head,
      '\\endfirsthead',
      top,
      head,
      '\\endhead',
      ...body.slice(table.headerRows),
      '\\end{longtable}',
    ]
      .filter(Boolean)
      .join('\n');
  }
  const float = table.wide && document.twoColumn ? 'table*' : 'table';
  return [
    `\\begin{${float}}[${table.wide ? 't' : 'h'}]`,
    '\\centering',
    table.caption ? `\\caption{${latexEscape(table.caption)}}` : '',
    `\\begin{tabular}{${spec}}`,
    top,
    ...body,
    '\\end{tabular}',
    note,
    `\\end{${float}}`,
  ]
    .filter(Boolean)
    .join('\n');
}

export function toLatex(document: HardDocument): string {
  const blocks = document.blocks.map((block) => {
    if (block.kind === 'heading') return `\\section{${latexEscape(block.text)}}`;
    if (block.kind === 'paragraph')
      return `${latexEscape(block.text)}${block.footnote ? `\\footnote{${latexEscape(block.footnote)}}` : ''}\n`;
    return latexTable(block, document);
  });
  return [
    `\\documentclass[10pt${document.twoColumn ? ',twocolumn' : ''}]{article}`,
    '\\usepackage[T1]{fontenc}',
    '\\usepackage{lmodern}',
    '\\usepackage[a4paper,margin=2.2cm]{geometry}',
    '\\usepackage{array,booktabs,multirow,longtable,fancyhdr}',
    '\\input{glyphtounicode}\\pdfgentounicode=1',
    '\\hyphenpenalty=10000 \\exhyphenpenalty=10000',
    '\\pagestyle{fancy}\\fancyhf{}',
    `\\fancyhead[L]{${latexEscape(runningHead(document))}}`,
    '\\fancyfoot[C]{Page \\thepage}',
    '\\begin{document}',
    `{\\Large\\bfseries ${latexEscape(document.title)}\\par}\\bigskip`,
    ...blocks,
    '\\end{document}',
    '',
  ].join('\n');
}

// ---------------------------------------------------------------- HTML

const HTML_STYLES = `
@page { size: A4; margin: 2cm 1.8cm; }
body { font-family: 'Liberation Serif', serif; font-size: 11pt; line-height: 1.35; }
h1 { font-size: 18pt; } h2 { font-size: 13pt; margin: 14pt 0 6pt; }
.cols { column-count: 2; column-gap: 0.8cm; }
table { border-collapse: collapse; margin: 8pt 0; font-size: 10pt; }
table.wide, table.long { width: 100%; }
caption { caption-side: top; text-align: left; font-style: italic; padding-bottom: 4pt; }
th, td { padding: 3pt 6pt; text-align: left; vertical-align: top; }
table.grid th, table.grid td { border: 1px solid #444; }
table.zebra th { border-bottom: 2px solid #333; background: #dde4ee; }
table.zebra tbody tr:nth-child(even) td { background: #eeeeee; }
table.plain th { border-bottom: 1px solid #000; }
table.booktabs { border-top: 2px solid #000; border-bottom: 2px solid #000; }
table.booktabs thead tr:last-child th { border-bottom: 1px solid #000; }
tr { break-inside: avoid; }
p.note { font-size: 9pt; margin-top: 2pt; }
ol.notes { font-size: 9pt; border-top: 1px solid #888; padding-top: 4pt; }
`;

function htmlTable(table: HardTable, document: HardDocument): string {
  const rows = table.rows.map((row, r) => {
    const tag = r < table.headerRows ? 'th' : 'td';
    const cells = row.flatMap((text, c) => {
      const { start, covering } = spanAt(table, r, c);
      if (covering) return [];
      const rowspan = start && start.rows > 1 ? ` rowspan="${start.rows}"` : '';
      const colspan = start && start.cols > 1 ? ` colspan="${start.cols}"` : '';
      const width = table.wrapColumns.includes(c) ? ' style="width: 45%"' : '';
      return [`<${tag}${rowspan}${colspan}${width}>${xmlEscape(text)}</${tag}>`];
    });
    return `<tr>${cells.join('')}</tr>`;
  });
  const classes = [table.style, table.wide ? 'wide' : '', document.layout === 'continued' ? 'long' : '']
    .filter(Boolean)
    .join(' ');
  return [
    `<table class="${classes}">`,
    table.caption ? `<caption>${xmlEscape(table.caption)}</caption>` : '',
    `<thead>${rows.slice(0, table.headerRows).join('\n')}</thead>`,
    `<tbody>${rows.slice(table.headerRows).join('\n')}</tbody>`,
    '</table>',
    table.note ? `<p class="note">${xmlEscape(table.note)}</p>` : '',
  ]
    .filter(Boolean)
    .join('\n');
}

export function toHtml(document: HardDocument): string {
  const notes: string[] = [];
  const render = (block: HardBlock): string => {
    if (block.kind === 'heading') return `<h2>${xmlEscape(block.text)}</h2>`;
    if (block.kind === 'paragraph') {
      if (!block.footnote) return `<p>${xmlEscape(block.text)}</p>`;
      notes.push(block.footnote);
      return `<p>${xmlEscape(block.text)}<sup><a href="#n${notes.length}">${notes.length}</a></sup></p>`;
    }
    return htmlTable(block, document);
  };
  const parts: string[] = [];
  let open = false;
  for (const block of document.blocks) {
    const inColumns = document.twoColumn && !(block.kind === 'table' && block.wide);
    if (inColumns && !open) parts.push('<div class="cols">');
    if (!inColumns && open) parts.push('</div>');
    open = inColumns;
    parts.push(render(block));
  }
  if (open) parts.push('</div>');
  if (notes.length)
    parts.push(`<ol class="notes">${notes.map((n, i) => `<li id="n${i + 1}">${xmlEscape(n)}</li>`).join('')}</ol>`);
  return [
    '<!DOCTYPE html>',
    `<html lang="en"><head><meta charset="utf-8"><title>${xmlEscape(runningHead(document))}</title>`,
    `<style>${HTML_STYLES}</style></head><body>`,
    `<h1>${xmlEscape(document.title)}</h1>`,
    ...parts,
    '</body></html>',
    '',
  ].join('\n');
}

// ---------------------------------------------------------------- ODF (flat XML)

const BORDER = '0.5pt solid #000000';

function odfCellStyle(r: number, c: number, t: number): string {
  return `T${t}R${r}C${c}`;
}

function odfCellStyles(table: HardTable, t: number): string[] {
  const styles: string[] = [];
  const rows = table.rows.length;
  for (const [r, row] of table.rows.entries())
    for (const c of row.keys()) {
      const spanRows = table.spans.find((s) => s.row === r && s.col === c)?.rows ?? 1;
      const bottomRow = r + spanRows - 1;
      const properties: string[] = ['fo:padding="0.08cm"'];
      if (table.style === 'grid') properties.push(`fo:border="${BORDER}"`);
      if (table.style === 'booktabs') {
        if (r === 0) properties.push(`fo:border-top="1pt solid #000000"`);
        if (bottomRow === table.headerRows - 1) properties.push(`fo:border-bottom="${BORDER}"`);
        if (bottomRow === rows - 1) properties.push(`fo:border-bottom="1pt solid #000000"`);
      }
      if (table.style === 'zebra') {
        if (r < table.headerRows) properties.push('fo:background-color="#dde4ee"');
        else if ((r - table.headerRows) % 2 === 1) properties.push('fo:background-color="#eeeeee"');
      }
      if (table.style === 'plain' && bottomRow === table.headerRows - 1)
        properties.push(`fo:border-bottom="${BORDER}"`);
      styles.push(
        `<style:style style:name="${odfCellStyle(r, c, t)}" style:family="table-cell">` +
          `<style:table-cell-properties ${properties.join(' ')}/></style:style>`,
      );
    }
  return styles;
}

function odfTable(table: HardTable, t: number): string {
  const columns = table.rows[0]!.length;
  const weights = Array.from({ length: columns }, (_, c) => (table.wrapColumns.includes(c) ? 4 : 1));
  const columnXml = weights.map((_, c) => `<table:table-column table:style-name="T${t}Col${c}"/>`).join('');
  const rowXml = (r: number) => {
    const cells = table.rows[r]!.map((text, c) => {
      const { start, covering } = spanAt(table, r, c);
      if (covering) return '<table:covered-table-cell/>';
      const spanned =
        (start && start.cols > 1 ? ` table:number-columns-spanned="${start.cols}"` : '') +
        (start && start.rows > 1 ? ` table:number-rows-spanned="${start.rows}"` : '');
      const paragraph = r < table.headerRows ? 'Head' : 'Cell';
      return (
        `<table:table-cell table:style-name="${odfCellStyle(r, c, t)}" office:value-type="string"${spanned}>` +
        `<text:p text:style-name="${paragraph}">${xmlEscape(text)}</text:p></table:table-cell>`
      );
    });
    return `<table:table-row>${cells.join('')}</table:table-row>`;
  };
  const header = table.rows.slice(0, table.headerRows).map((_, r) => rowXml(r));
  const body = table.rows.slice(table.headerRows).map((_, i) => rowXml(i + table.headerRows));
  return [
    table.caption ? `<text:p text:style-name="Caption">Table ${t}: ${xmlEscape(table.caption)}</text:p>` : '',
    `<table:table table:name="Table${t}" table:style-name="T${t}">${columnXml}`,
    `<table:table-header-rows>${header.join('')}</table:table-header-rows>`,
    ...body,
    '</table:table>',
    table.note ? `<text:p text:style-name="Note">${xmlEscape(table.note)}</text:p>` : '',
  ]
    .filter(Boolean)
    .join('\n');
}

export function toFodt(document: HardDocument): string {
  const automatic: string[] = [];
  const body: string[] = [];
  let tables = 0;
  let notes = 0;
  let sectionOpen = false;
  let sections = 0;
  for (const block of document.blocks) {
    const inColumns = document.twoColumn && !(block.kind === 'table' && block.wide);
    if (inColumns && !sectionOpen) body.push(`<text:section text:style-name="Sect2" text:name="Cols${++sections}">`);
    if (!inColumns && sectionOpen) body.push('</text:section>');
    sectionOpen = inColumns;
    if (block.kind === 'heading')
      body.push(`<text:h text:style-name="Heading_20_2" text:outline-level="2">${xmlEscape(block.text)}</text:h>`);
    else if (block.kind === 'paragraph') {
      const note = block.footnote
        ? `<text:note text:id="ftn${++notes}" text:note-class="footnote"><text:note-citation>${notes}` +
          `</text:note-citation><text:note-body><text:p text:style-name="Footnote">${xmlEscape(block.footnote)}` +
          '</text:p></text:note-body></text:note>'
        : '';
      body.push(`<text:p text:style-name="Text_20_body">${xmlEscape(block.text)}${note}</text:p>`);
    } else {
      const t = ++tables;
      const width = document.twoColumn && !block.wide ? 8 : 17;
      const columns = block.rows[0]!.length;
      const weights = Array.from({ length: columns }, (_, c) => (block.wrapColumns.includes(c) ? 4 : 1));
      const total = weights.reduce((a, b) => a + b, 0);
      automatic.push(
        `<style:style style:name="T${t}" style:family="table"><style:table-properties style:width="${width}cm" ` +
          'table:align="left" fo:margin-top="0.2cm" fo:margin-bottom="0.2cm"/></style:style>',
        ...weights.map(
          (w, c) =>
            `<style:style style:name="T${t}Col${c}" style:family="table-column"><style:table-column-properties ` +
            `style:column-width="${((width * w) / total).toFixed(2)}cm"/></style:style>`,
        ),
        ...odfCellStyles(block, t),
      );
      body.push(odfTable(block, t));
    }
  }
  if (sectionOpen) body.push('</text:section>');
  const running = document.running
    ? `<style:header><text:p text:style-name="Header">${xmlEscape(runningHead(document))}</text:p></style:header>` +
      '<style:footer><text:p text:style-name="Footer">Page <text:page-number text:select-page="current">1' +
      '</text:page-number></text:p></style:footer>'
    : '';
  return `<?xml version="1.0" encoding="UTF-8"?>
<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"
 xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0"
 xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"
 xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"
 xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0"
 office:version="1.3" office:mimetype="application/vnd.oasis.opendocument.text">
<office:font-face-decls>
 <style:font-face style:name="Liberation Serif" svg:font-family="'Liberation Serif'"
  xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0"/>
</office:font-face-decls>
<office:styles>
 <style:default-style style:family="paragraph"><style:text-properties style:font-name="Liberation Serif"
  fo:font-size="11pt" fo:language="en" fo:country="GB"/></style:default-style>
 <style:style style:name="Standard" style:family="paragraph"/>
 <style:style style:name="Text_20_body" style:display-name="Text body" style:family="paragraph">
  <style:paragraph-properties fo:margin-bottom="0.2cm" fo:text-align="justify"/></style:style>
 <style:style style:name="Title" style:family="paragraph"><style:paragraph-properties fo:margin-bottom="0.4cm"/>
  <style:text-properties fo:font-size="18pt" fo:font-weight="bold"/></style:style>
 <style:style style:name="Heading_20_2" style:display-name="Heading 2" style:family="paragraph"
  style:default-outline-level="2"><style:paragraph-properties fo:margin-top="0.35cm" fo:margin-bottom="0.2cm"/>
  <style:text-properties fo:font-size="13pt" fo:font-weight="bold"/></style:style>
 <style:style style:name="Cell" style:family="paragraph"><style:text-properties fo:font-size="10pt"/></style:style>
 <style:style style:name="Head" style:family="paragraph"><style:text-properties fo:font-size="10pt"
  fo:font-weight="bold"/></style:style>
 <style:style style:name="Caption" style:family="paragraph"><style:paragraph-properties fo:margin-top="0.2cm"/>
  <style:text-properties fo:font-style="italic" fo:font-size="10pt"/></style:style>
 <style:style style:name="Note" style:family="paragraph"><style:text-properties fo:font-size="9pt"/></style:style>
 <style:style style:name="Footnote" style:family="paragraph"><style:text-properties fo:font-size="9pt"/>
  </style:style>
 <style:style style:name="Header" style:family="paragraph"><style:text-properties fo:font-size="9pt"/></style:style>
 <style:style style:name="Footer" style:family="paragraph"><style:paragraph-properties fo:text-align="center"/>
  <style:text-properties fo:font-size="9pt"/></style:style>
</office:styles>
<office:automatic-styles>
 <style:page-layout style:name="pm1"><style:page-layout-properties fo:page-width="21cm" fo:page-height="29.7cm"
  fo:margin-top="1.2cm" fo:margin-bottom="1.2cm" fo:margin-left="2cm" fo:margin-right="2cm"/>
  <style:header-style><style:header-footer-properties fo:min-height="0.6cm" fo:margin-bottom="0.4cm"/>
  </style:header-style><style:footer-style><style:header-footer-properties fo:min-height="0.6cm"
  fo:margin-top="0.4cm"/></style:footer-style></style:page-layout>
 <style:style style:name="Sect2" style:family="section"><style:section-properties>
  <style:columns fo:column-count="2" fo:column-gap="0.8cm"/></style:section-properties></style:style>
 ${automatic.join('\n ')}
</office:automatic-styles>
<office:master-styles><style:master-page style:name="Standard" style:page-layout-name="pm1">${running}
</style:master-page></office:master-styles>
<office:body><office:text>
<text:p text:style-name="Title">${xmlEscape(document.title)}</text:p>
${body.join('\n')}
</office:text></office:body></office:document>
`;
}
