import type { z } from 'zod';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { singleInput, type FileResult, type PluginInput, type RunContext } from '../../../core/contract/index.js';
import { openPdf, runQpdf } from '../../../core/engines/qpdf.js';
import { outputDir, stemOf } from '../shared/output.js';
import { assertPagesExist, formatRange, pageRangesOf } from '../shared/page-ranges.js';
import { writeZip, type ZipEntry } from '../shared/zip.js';
import type { splitOptions } from './options.js';

/** One file per page in a single qpdf run (`--split-pages` numbers its files part-1.pdf, part-01.pdf...). */
async function splitEveryPage(input: PluginInput, dir: string, ctx: RunContext): Promise<ZipEntry[]> {
  await runQpdf({ inputFile: input.path, outputFile: path.join(dir, 'part.pdf'), splitPages: '' }, ctx);
  const parts = (await readdir(dir))
    .map((name) => ({ name, page: Number(/^part-(\d+)\.pdf$/.exec(name)?.[1]) }))
    .filter((part) => part.page > 0);
  return parts
    .sort((a, b) => a.page - b.page)
    .map((part) => ({ path: path.join(dir, part.name), name: `${stemOf(input)}-p${part.page}.pdf`, compress: true }));
}

async function splitRanges(
  input: PluginInput,
  pageCount: number,
  ranges: string,
  dir: string,
  ctx: RunContext,
): Promise<ZipEntry[]> {
  const parsed = pageRangesOf(ranges);
  assertPagesExist(parsed, pageCount);
  const entries: ZipEntry[] = [];
  for (const [i, range] of parsed.entries()) {
    const file = path.join(dir, `range-${i + 1}.pdf`);
    await runQpdf({ inputFile: input.path, outputFile: file, pages: [{ file: '.', range: formatRange(range) }] }, ctx);
    entries.push({ path: file, name: `${stemOf(input)}-${formatRange(range)}.pdf`, compress: true });
    ctx.progress(10 + Math.floor((80 * (i + 1)) / parsed.length));
  }
  return entries;
}

export async function splitPdf(
  inputs: readonly PluginInput[],
  { split }: z.output<typeof splitOptions>,
  ctx: RunContext,
): Promise<FileResult> {
  ctx.signal.throwIfAborted();
  const input = singleInput(inputs);
  const pageCount = await openPdf(input.path, ctx);
  ctx.progress(10);
  const dir = await outputDir(ctx);
  const entries =
    split.mode === 'pages'
      ? await splitEveryPage(input, dir, ctx)
      : await splitRanges(input, pageCount, split.ranges, dir, ctx);
  const output = path.join(await outputDir(ctx), 'split.zip');
  await writeZip(entries, output, ctx.signal);
  ctx.progress(100);
  return { path: output, format: 'zip' };
}
