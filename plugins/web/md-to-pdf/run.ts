import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { micromark } from 'micromark';
import { gfm, gfmHtml } from 'micromark-extension-gfm';
import { singleInput, type FileResult, type PluginInput, type RunContext } from '../../../core/contract/index.js';
import { decodeUnicode } from '../../../core/contract/text.js';
import { pdfMetadataEdit, pdfRenderOptions, type PdfPageOptions } from '../shared/options.js';
import { blockedCounter, printToPdf } from '../shared/render.js';
import { folderSource } from '../shared/site.js';
import { markCjkLanguages } from './languages.js';
import { MARKDOWN_CSS } from './stylesheet.js';

/**
 * GitHub-flavoured Markdown as an HTML document with the built-in stylesheet. Raw HTML in the Markdown is shown as
 * text.
 */
export function markdownDocument(markdown: string, title: string): string {
  // Each Chinese, Japanese or Korean block marked with its language: Han characters are drawn in its shapes.
  const body = markCjkLanguages(micromark(markdown, { extensions: [gfm()], htmlExtensions: [gfmHtml()] }));
  const escapedTitle = title.replace(/[<>&"]/g, (c) => `&#${c.charCodeAt(0)};`);
  return (
    `<!doctype html><html><head><meta ` +
    `charset="utf-8"><title>${escapedTitle}</title><style>${MARKDOWN_CSS}</style></head><body>${body}</body></html>`
  );
}

export async function mdToPdf(
  inputs: readonly PluginInput[],
  options: PdfPageOptions,
  ctx: RunContext,
): Promise<FileResult> {
  const input = singleInput(inputs);
  const markdown = decodeUnicode(await readFile(input.path));
  const root = path.join(ctx.workDir, 'site');
  await mkdir(root, { recursive: true });
  await writeFile(path.join(root, 'index.html'), markdownDocument(markdown, path.parse(input.filename).name));
  const onBlocked = blockedCounter(ctx);
  return {
    path: await printToPdf(
      folderSource(root, 'index.html', onBlocked),
      'document',
      { ...pdfRenderOptions(options), onBlocked },
      pdfMetadataEdit(options),
      ctx,
    ),
    format: 'pdf',
  };
}
