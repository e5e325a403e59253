/**
 * PDF -> DOCX: an editable document rebuilt from the PDF's structure, not its layout. The
 * project's PDF -> Markdown engine finds headings (by size rank), paragraphs (lines joined,
 * hyphenation undone), lists and tables (ruled and borderless, continued across pages), strips
 * running headers and footers, and reads pages without a text layer by OCR; pandoc writes that
 * Markdown as DOCX (Heading 1-6 styles, real paragraphs, Word lists and tables). Images, fonts,
 * colours and page geometry are not carried over: what comes back is the text and its structure.
 * (LibreOffice's PDF import gives one text frame per line, which is why it is not used here.)
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  PluginError,
  singleInput,
  type FileResult,
  type PluginInput,
  type RunContext,
} from '../../../core/contract/index.js';
import { pandocConvert } from '../../../core/engines/pandoc.js';
import { pdfToMarkdown } from '../shared/engine/index.js';

/**
 * pandoc's reader for the engine's Markdown: GitHub-flavoured (pipe tables, ATX headings, lists,
 * footnotes), without emoji shortcodes, so ":smile:" in the PDF stays text.
 */
export const PANDOC_MARKDOWN_READER = 'gfm-raw_html-emoji';

/**
 * The engine's Markdown with the PDF's own characters made literal for pandoc: the engine writes
 * structure (headings, list markers, table pipes, footnote marks) and escapes only what would
 * change the structure at the start of a line, so a "2*3*4", "<b>", "&amp;", "[x]" or "~x~" in
 * the text would become emphasis, raw HTML, an entity, a link or strikeout in the DOCX. Each of
 * those characters gets a backslash; the engine's own escapes and footnote marks ([^1]) stay.
 */
export function literalMarkdown(markdown: string): string {
  return markdown.replace(/\\[\s\S]|\[\^[^\]\s]+\]|[*_`~<>&[\]]/g, (match) =>
    match.length > 1 ? match : `\\${match}`,
  );
}

export async function pdfToDocx(
  inputs: readonly PluginInput[],
  _options: unknown,
  ctx: RunContext,
): Promise<FileResult> {
  ctx.signal.throwIfAborted();
  const input = singleInput(inputs);
  const pdf = new Uint8Array(await readFile(input.path));
  ctx.progress(5);
  // Leave pandoc a few seconds of the run's time.
  const budget = Math.max(1_000, ctx.remainingMs() - 10_000);
  const { markdown, stats } = await pdfToMarkdown(pdf, {
    keepRunning: false,
    pageBreaks: false,
    signal: ctx.signal,
    timeoutMs: budget,
  });
  ctx.signal.throwIfAborted();
  if (stats.words === 0)
    throw new PluginError('The PDF has no text to put in a DOCX (no text layer, and OCR found no words)');
  ctx.progress(80);
  const dir = path.join(ctx.workDir, 'pdf-to-docx');
  await mkdir(dir, { recursive: true });
  const source = path.join(dir, 'document.md');
  const output = path.join(dir, 'output.docx');
  await writeFile(source, literalMarkdown(markdown));
  await pandocConvert(
    {
      input: source,
      from: PANDOC_MARKDOWN_READER,
      to: 'docx',
      output,
      workDir: dir,
      summary: 'Could not write the DOCX',
    },
    ctx,
  );
  ctx.signal.throwIfAborted();
  ctx.progress(100);
  return { path: output, format: 'docx' };
}
