import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import {
  PluginError,
  singleInput,
  type FileResult,
  type PluginInput,
  type RunContext,
} from '../../../core/contract/index.js';
import { extractImages } from '../../../core/engines/poppler.js';
import { openPdf } from '../../../core/engines/qpdf.js';
import { outputDir, stemOf } from '../shared/output.js';
import { writeZip, type ZipEntry } from '../shared/zip.js';

/** pdfimages -p names its files <prefix>-<page>-<number>.<ext>. */
const EXTRACTED = /^img-(\d+)-(\d+)\.(png|jpg)$/;

export async function extractPdfImages(inputs: readonly PluginInput[], ctx: RunContext): Promise<FileResult> {
  ctx.signal.throwIfAborted();
  const input = singleInput(inputs);
  await openPdf(input.path, ctx);
  ctx.progress(10);
  const dir = await outputDir(ctx);
  await extractImages(input.path, path.join(dir, 'img'), ctx);
  ctx.progress(70);

  const extracted = (await readdir(dir))
    .map((name) => ({ name, match: EXTRACTED.exec(name) }))
    .filter((file): file is { name: string; match: RegExpExecArray } => file.match !== null)
    .map(({ name, match }) => ({ name, page: Number(match[1]), number: Number(match[2]), extension: match[3]! }))
    .sort((a, b) => a.page - b.page || a.number - b.number);
  const seen = new Set<string>();
  const perPage = new Map<number, number>();
  const entries: ZipEntry[] = [];
  for (const image of extracted) {
    const file = path.join(dir, image.name);
    const digest = createHash('sha256')
      .update(await readFile(file))
      .digest('hex');
    if (seen.has(digest)) continue;
    seen.add(digest);
    const index = (perPage.get(image.page) ?? 0) + 1;
    perPage.set(image.page, index);
    entries.push({
      path: file,
      name: `${stemOf(input)}-p${image.page}-${index}.${image.extension}`,
      compress: false,
    });
  }
  if (!entries.length) throw new PluginError('The PDF has no embedded images');

  const output = path.join(await outputDir(ctx), 'images.zip');
  await writeZip(entries, output, ctx.signal);
  ctx.progress(100);
  return { path: output, format: 'zip' };
}
