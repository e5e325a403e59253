/**
 * PDF -> Markdown. Pure and deterministic: the output depends only on the PDF bytes and options
 * (no clock, locale or hash order), so the same file gives byte-identical Markdown anywhere.
 */
import { DEFAULT_TIME_BUDGET_MS, markdownOptions, type EngineOptions } from '../options.js';
import { analyseStyle, documentBlocks, type FlowItem } from './blocks.js';
import { readingOrder } from './columns.js';
import { buildLines } from './lines.js';
import { renderMarkdown } from './markdown.js';
import { ocrPage } from './ocr.js';
import { outlineHeadings } from './outline.js';
import { asPluginError, Deadline, openDocument, readOutline, readPage } from './pdf.js';
import { findRunningLines } from './running.js';
import { extractBorderlessTables, extractRuledTables, type Table } from './tables.js';
import type { Block, Line, OutlineEntry, PageContent } from './types.js';

export interface MarkdownStats {
  headings: number;
  tables: number;
  words: number;
  running_lines_stripped: number;
  /** Pages with no text layer, read by OCR. */
  ocr_pages: number;
}

export interface MarkdownResult {
  pages: number;
  markdown: string;
  stats: MarkdownStats;
}

interface PageLayout {
  number: number;
  height: number;
  lines: Line[];
  tables: Table[];
  /** Lines and tables in reading order, once columns are known. */
  items?: FlowItem[];
}

export async function pdfToMarkdown(pdf: Uint8Array, options: EngineOptions = {}): Promise<MarkdownResult> {
  const { ocrPages, ...result } = await convertDocument(pdf, options);
  return { ...result, stats: { ...result.stats, ocr_pages: ocrPages } };
}

async function convertDocument(
  pdf: Uint8Array,
  options: EngineOptions,
): Promise<Omit<MarkdownResult, 'stats'> & { stats: Omit<MarkdownStats, 'ocr_pages'>; ocrPages: number }> {
  const { keepRunning, pageBreaks, lang } = markdownOptions.parse(options);
  const deadline = new Deadline(options.timeoutMs ?? DEFAULT_TIME_BUDGET_MS, options.signal);
  try {
    const { pages: contents, outline } = await readAllPages(pdf, deadline);
    let ocrPages = 0;
    for (const page of contents) {
      if (!page.scan) continue;
      page.runs = await ocrPage(page.scan, {
        signal: deadline.signal,
        remainingMs: () => deadline.remainingMs(),
        language: lang,
      });
      page.scan = undefined;
      ocrPages++;
    }
    return { ...convert(contents.map(ruledLayout), outline, keepRunning, pageBreaks), ocrPages };
  } catch (error) {
    throw asPluginError(error);
  } finally {
    deadline.dispose();
  }
}

async function readAllPages(
  pdf: Uint8Array,
  deadline: Deadline,
): Promise<{ pages: PageContent[]; outline: OutlineEntry[] }> {
  const document = await openDocument(pdf, deadline);
  try {
    const pages: PageContent[] = [];
    for (let number = 1; number <= document.numPages; number++) pages.push(await readPage(document, number, deadline));
    return { pages, outline: await readOutline(document, deadline) };
  } finally {
    await document.destroy();
  }
}

/** Ruled tables take their runs first; the rest of the page becomes lines. */
function ruledLayout(page: PageContent): PageLayout {
  const { tables, rest } = extractRuledTables(page.runs, page.rules);
  return { number: page.number, height: page.height, lines: buildLines(rest), tables };
}

function convert(
  layouts: PageLayout[],
  outline: readonly OutlineEntry[],
  keepRunning: boolean,
  pageBreaks: boolean,
): Omit<MarkdownResult, 'stats'> & { stats: Omit<MarkdownStats, 'ocr_pages'> } {
  let runningLinesStripped = 0;
  const runningByPage = new Map<number, Line[]>();
  if (!keepRunning) {
    const running = findRunningLines(layouts);
    layouts.forEach((layout, i) => {
      runningLinesStripped += running[i]!.size;
      runningByPage.set(layout.number, [...running[i]!]);
      layout.lines = layout.lines.filter((line) => !running[i]!.has(line));
    });
  }
  const pages = layouts.map((layout) => {
    // Column by column: borderless tables are found within one flow, never across the gutter.
    const items: FlowItem[] = [];
    for (const flow of readingOrder(layout.lines, layout.tables)) {
      const { tables, rest } = extractBorderlessTables(flow.lines);
      const ordered: ({ top: number } & FlowItem)[] = [
        ...rest.map((line) => ({ top: line.baseline - line.size, line })),
        ...[...flow.tables, ...tables].map((table) => ({ top: table.top, table })),
      ];
      ordered.sort((a, b) => a.top - b.top);
      for (const [i, item] of ordered.entries())
        items.push(i === 0 && flow.columnBreak && 'line' in item ? { line: item.line, columnBreak: true } : item);
    }
    return { page: layout.number, items };
  });
  const pageLines = pages.map((p) => p.items.flatMap((item) => ('line' in item ? [item.line] : [])));
  const style = analyseStyle(pageLines);
  style.outline = outlineHeadings(
    pages.map((p, i) => ({ page: p.page, lines: pageLines[i]! })),
    outline,
    runningByPage,
  );
  const blocks = documentBlocks(pages, style);
  return {
    pages: layouts.length,
    markdown: renderMarkdown(blocks, layouts.length, pageBreaks),
    stats: {
      headings: blocks.filter((b) => b.kind === 'heading').length,
      tables: blocks.filter((b) => b.kind === 'table').length,
      words: blocks.reduce((n, block) => n + wordsIn(block), 0),
      running_lines_stripped: runningLinesStripped,
    },
  };
}

function wordsIn(block: Block): number {
  const texts =
    block.kind === 'list'
      ? block.items.flatMap((i) => i.parts.map((p) => p.text))
      : block.kind === 'table'
        ? block.rows.flat()
        : block.kind === 'paragraph'
          ? block.parts.map((p) => p.text)
          : [block.text];
  return texts.reduce((n, text) => n + text.split(/\s+/).filter(Boolean).length, 0);
}
