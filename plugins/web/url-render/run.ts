/**
 * A web page rendered from its URL: the page and every subresource go through the outbound
 * address policy request by request (public addresses only unless IMPORT_ALLOW_PRIVATE=1, cloud
 * metadata never), each fetched from Node with a connection pinned to the checked address and
 * handed to Chromium, which itself can reach nothing (core/engines/chromium.ts).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import {
  PluginError,
  singleInput,
  type FileResult,
  type PluginInput,
  type RunContext,
} from '../../../core/contract/index.js';
import { renderImage, type FetchedResource, type PageSource } from '../../../core/engines/chromium.js';
import { fetchChecked } from '../../../core/engines/outbound-fetch.js';
import {
  DestinationRefused,
  outboundPolicy,
  parseDestinationUrl,
  resolveDestination,
} from '../../../core/engines/outbound.js';
import { pdfMetadataEdit, pdfRenderOptions } from '../shared/options.js';
import { blockedCounter, printToPdf } from '../shared/render.js';
import type { UrlRenderOptions } from './options.js';

const MAX_REQUESTS = 300;
const MAX_RESOURCE_BYTES = 25_000_000;
const MAX_PAGE_BYTES = 100_000_000;
const REQUEST_TIMEOUT_MS = 15_000;

/** The address in a `.url` file: an [InternetShortcut]'s URL= line, or the file's one line. */
export function urlOf(text: string): string {
  const shortcut = /^\s*URL\s*=\s*(\S+)\s*$/im.exec(text);
  const line = shortcut?.[1] ?? text.trim().split(/\s+/)[0] ?? '';
  if (!/^https?:\/\//i.test(line))
    throw new PluginError('The file holds no http(s) URL (one URL, or an [InternetShortcut] with a URL= line)');
  return line;
}

function remoteSource(pageUrl: string, ctx: RunContext, onBlocked: (url: string) => void): PageSource {
  const policy = outboundPolicy();
  let requests = 0;
  let bytes = 0;
  return {
    url: pageUrl,
    async fetch(request): Promise<FetchedResource | undefined> {
      if (!/^https?:/i.test(request.url) || (request.method !== 'GET' && request.method !== 'HEAD'))
        return void onBlocked(request.url);
      if (++requests > MAX_REQUESTS || bytes > MAX_PAGE_BYTES) return void onBlocked(request.url);
      try {
        const response = await fetchChecked({
          url: request.url,
          method: request.method,
          headers: request.headers,
          policy,
          signal: ctx.signal,
          timeoutMs: Math.min(REQUEST_TIMEOUT_MS, ctx.remainingMs()),
          maxBytes: MAX_RESOURCE_BYTES,
          label: 'Page URL',
        });
        bytes += response.body.length;
        return response;
      } catch (err) {
        // Refused by the policy, unreachable or too large: the page renders without it.
        ctx.log.debug('url-render: subresource refused or failed', {
          url: request.url.slice(0, 200),
          error: (err as Error).message,
        });
        return void onBlocked(request.url);
      }
    },
  };
}

export async function urlRender(
  inputs: readonly PluginInput[],
  options: UrlRenderOptions,
  ctx: RunContext,
): Promise<FileResult> {
  const input = singleInput(inputs);
  const raw = urlOf(await readFile(input.path, 'utf8'));
  // The page's own address is checked first, so a refusal is the job's error, not an empty page.
  try {
    const url = parseDestinationUrl(raw, outboundPolicy(), 'Page URL');
    await resolveDestination(url, outboundPolicy(), 'Page URL');
  } catch (err) {
    if (err instanceof DestinationRefused) throw new PluginError(err.message, { cause: err });
    throw err;
  }
  const onBlocked = blockedCounter(ctx);
  const source = remoteSource(raw, ctx, onBlocked);
  if (ctx.target === 'pdf') {
    return {
      path: await printToPdf(
        source,
        'page',
        {
          ...pdfRenderOptions(options),
          viewport: options.viewport,
          failOnHttpStatusCodes: options.failOnHttpStatusCodes,
          onBlocked,
        },
        pdfMetadataEdit(options),
        ctx,
      ),
      format: 'pdf',
    };
  }
  if (ctx.target !== 'png' && ctx.target !== 'webp')
    throw new PluginError(`A web page renders to pdf, png or webp, not ${ctx.target}`);
  const png = path.join(ctx.workDir, 'page.png');
  ctx.progress(10);
  await renderImage(
    source,
    png,
    {
      waitFor: pdfRenderOptions(options).waitFor,
      type: 'png',
      fullPage: options.fullPage,
      viewport: options.viewport,
      failOnHttpStatusCodes: options.failOnHttpStatusCodes,
      failOnConsoleExceptions: options.failOnConsoleExceptions,
      onBlocked,
    },
    ctx,
  );
  ctx.signal.throwIfAborted();
  if (ctx.target === 'png') return { path: png, format: 'png' };
  const webp = path.join(ctx.workDir, 'page.webp');
  await sharp(png, { limitInputPixels: false }).webp({ quality: 85 }).toFile(webp);
  ctx.signal.throwIfAborted();
  return { path: webp, format: 'webp' };
}
