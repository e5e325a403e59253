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
import { scanRules } from './scanrules.js';
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
  const { keepRunning, pageBreaks } = markdownOptions.parse(options);
  const { layouts, outline, ocrPages } = await readLayouts(pdf, options);
  return { ...convert(layouts, outline, keepRunning, pageBreaks), ocrPages };
}

/** A PDF's bytes, or pages already read (an image's: scans with no text layer). */
type PageSource = Uint8Array | { pages: PageContent[] };

/** Every page read (scans OCRed) and laid out with its ruled tables, and the outline. */
async function readLayouts(
  source: PageSource,
  options: EngineOptions,
): Promise<{ layouts: PageLayout[]; sizes: PageSize[]; outline: OutlineEntry[]; ocrPages: number }> {
  const { lang } = markdownOptions.parse(options);
  const deadline = new Deadline(options.timeoutMs ?? DEFAULT_TIME_BUDGET_MS, options.signal);
  const pdf = source instanceof Uint8Array;
  try {
    const { pages: contents, outline } = pdf ? await readAllPages(source, deadline) : { ...source, outline: [] };
    let ocrPages = 0;
    for (const page of contents) {
      if (!page.scan) continue;
      page.runs = await ocrPage(page.scan, {
        signal: deadline.signal,
        remainingMs: () => deadline.remainingMs(),
        language: lang,
      });
      page.rules = [...page.rules, ...scanRules(page.scan)];
      page.scan = undefined;
      ocrPages++;
    }
    const sizes = contents.map((page) => ({ number: page.number, width: page.width, height: page.height }));
    return { layouts: contents.map(ruledLayout), sizes, outline, ocrPages };
  } catch (error) {
    // pdfjs's own errors say what is wrong with the PDF; an image's pages fail only in OCR, which words its own.
    if (!pdf) throw error;
    throw asPluginError(error);
  } finally {
    deadline.dispose();
  }
}

export interface PageSize {
  number: number;
  width: number;
  height: number;
}

/** The engine's own structure of a PDF: its blocks in reading order, the running lines it set apart, page sizes. */
export interface PdfStructure {
  blocks: Block[];
  running: { page: number; height: number; lines: Line[] }[];
  pages: PageSize[];
  ocrPages: number;
}

/** What pdfToMarkdown renders, before rendering: the document model is read from it (Markdown is one rendering). */
export function pdfStructure(pdf: Uint8Array, options: EngineOptions = {}): Promise<PdfStructure> {
  return structureOf(pdf, options);
}

/** The same structure from pages with no text layer (an image's, image.ts): every page is OCRed. */
export function scannedPagesStructure(pages: PageContent[], options: EngineOptions = {}): Promise<PdfStructure> {
  return structureOf({ pages }, options);
}

async function structureOf(source: PageSource, options: EngineOptions): Promise<PdfStructure> {
  const { keepRunning } = markdownOptions.parse(options);
  const { layouts, sizes, outline, ocrPages } = await readLayouts(source, options);
  const { blocks, runningByPage } = analyse(layouts, outline, keepRunning);
  return {
    blocks,
    running: layouts.map((layout) => ({
      page: layout.number,
      height: layout.height,
      lines: runningByPage.get(layout.number) ?? [],
    })),
    pages: sizes,
    ocrPages,
  };
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
  const { blocks, runningLinesStripped } = analyse(layouts, outline, keepRunning);
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

function analyse(
  layouts: PageLayout[],
  outline: readonly OutlineEntry[],
  keepRunning: boolean,
): { blocks: Block[]; runningByPage: Map<number, Line[]>; runningLinesStripped: number } {
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
  return { blocks: documentBlocks(pages, style), runningByPage, runningLinesStripped };
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
