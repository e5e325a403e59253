/**
 * The document a web plugin renders, served to the page from Node under a made-up origin: one
 * HTML file, or a ZIP's `index.html` with the ZIP's other files as its assets. Nothing else is
 * answered (the offline rule): a request for another host, or for a path the document does not
 * hold, is refused, so an upload can never make the server fetch anything.
 */
import { createWriteStream } from 'node:fs';
import { copyFile, mkdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import yauzl from 'yauzl';
import { PluginError, type PluginInput, type RunContext } from '../../../core/contract/index.js';
import type { FetchedResource, PageSource } from '../../../core/engines/chromium.js';
import { assertZipWithinLimits } from '../../../core/engines/zip.js';

/** Reserved TLD: never a real host. The page sees its assets on this origin. */
export const DOCUMENT_ORIGIN = 'https://document.invalid';
const MAX_INFLATED_BYTES = 500_000_000;
const MAX_ENTRIES = 5_000;

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.htm': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.ico': 'image/x-icon',
  '.bmp': 'image/bmp',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.otf': 'font/otf',
  '.txt': 'text/plain; charset=utf-8',
  '.xml': 'application/xml',
};

export function contentTypeOf(file: string): string {
  return CONTENT_TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
}

const NOT_IN_DOCUMENT: FetchedResource = {
  status: 404,
  headers: { 'content-type': 'text/plain' },
  body: Buffer.from('not in the document'),
};

/**
 * A page source under DOCUMENT_ORIGIN starting at `entry`: requests for another origin or method
 * are refused (and reported to `onBlocked`); a GET of the document's own origin is answered by
 * `read` with its decoded path.
 */
function documentOriginSource(
  entry: string,
  onBlocked: ((url: string) => void) | undefined,
  read: (pathname: string) => Promise<FetchedResource | undefined>,
): PageSource {
  return {
    url: `${DOCUMENT_ORIGIN}/${entry.split('/').map(encodeURIComponent).join('/')}`,
    async fetch(request): Promise<FetchedResource | undefined> {
      const url = new URL(request.url);
      if (url.origin !== DOCUMENT_ORIGIN || request.method !== 'GET') return void onBlocked?.(request.url);
      let pathname: string;
      try {
        pathname = decodeURIComponent(url.pathname);
      } catch {
        return undefined;
      }
      return read(pathname);
    },
  };
}

/** A page source serving `root`'s files under DOCUMENT_ORIGIN, starting at `entry` (relative to root). */
export function folderSource(root: string, entry: string, onBlocked?: (url: string) => void): PageSource {
  return documentOriginSource(entry, onBlocked, async (pathname) => {
    const file = path.resolve(root, `.${pathname}`);
    if (file !== root && !file.startsWith(`${root}${path.sep}`)) return undefined;
    const info = await stat(file).catch(() => undefined);
    if (!info?.isFile()) return NOT_IN_DOCUMENT;
    return { status: 200, headers: { 'content-type': contentTypeOf(file) }, body: await readFile(file) };
  });
}

/** A document this small (the upload, and its ZIP's files once inflated) is served from memory. */
const IN_MEMORY_BYTES = 16_000_000;

/**
 * A page source serving `files` (by their path in the document, `/`-separated) under
 * DOCUMENT_ORIGIN, starting at `entry`: the same answers as folderSource, without a disk round trip.
 */
export function memorySource(
  files: ReadonlyMap<string, Buffer>,
  entry: string,
  onBlocked?: (url: string) => void,
): PageSource {
  return documentOriginSource(entry, onBlocked, async (pathname) => {
    const name = path.posix.normalize(`/${pathname}`).slice(1);
    const body = files.get(name);
    if (!body) return NOT_IN_DOCUMENT;
    return { status: 200, headers: { 'content-type': contentTypeOf(name) }, body };
  });
}

/**
 * A small ZIP's files in memory, read in one pass that stops past IN_MEMORY_BYTES inflated; undefined
 * for anything else (larger, damaged, odd names), which unpack() then handles with its full checks.
 */
async function readSmallZip(zipPath: string, signal: AbortSignal): Promise<Map<string, Buffer> | undefined> {
  let zip: yauzl.ZipFile | undefined;
  try {
    zip = await yauzl.openPromise(zipPath, {
      lazyEntries: true,
      autoClose: false,
      validateEntrySizes: true,
      strictFileNames: false,
    });
    if (zip.entryCount > MAX_ENTRIES) return undefined;
    const files = new Map<string, Buffer>();
    let inflated = 0;
    for await (const entry of zip.eachEntry()) {
      signal.throwIfAborted();
      const name = entry.fileName.replace(/\\/g, '/');
      if (name.endsWith('/') || name.startsWith('__MACOSX/')) continue;
      const normal = path.posix.normalize(name);
      if (normal !== name || path.posix.isAbsolute(name) || name.startsWith('../')) return undefined;
      if (inflated + entry.uncompressedSize > IN_MEMORY_BYTES) return undefined;
      const chunks: Buffer[] = [];
      for await (const chunk of await zip.openReadStreamPromise(entry)) {
        inflated += (chunk as Buffer).length;
        if (inflated > IN_MEMORY_BYTES) return undefined;
        chunks.push(chunk as Buffer);
      }
      files.set(name, Buffer.concat(chunks));
    }
    return files;
  } catch (err) {
    if (signal.aborted) throw err;
    return undefined;
  } finally {
    zip?.close();
  }
}

/** index.html at the top, or inside the one folder the ZIP was made from. */
function entryOf(files: readonly string[]): string {
  const entry =
    files.find((f) => f.toLowerCase() === 'index.html') ??
    files.filter((f) => /^[^/]+\/index\.html$/i.test(f)).sort()[0];
  if (!entry) throw new PluginError('The ZIP holds no index.html (at its top, or in its one top folder)');
  return entry;
}

/** Unpack a ZIP into `root` (checked first against bombs; entries outside `root` refused). */
async function unpack(zipPath: string, root: string, signal: AbortSignal): Promise<string[]> {
  await assertZipWithinLimits(zipPath, {
    maxInflatedBytes: MAX_INFLATED_BYTES,
    maxEntries: MAX_ENTRIES,
    label: 'ZIP',
    signal,
  });
  const zip = await yauzl.openPromise(zipPath, {
    lazyEntries: true,
    autoClose: false,
    validateEntrySizes: true,
    strictFileNames: false,
  });
  const files: string[] = [];
  try {
    for await (const entry of zip.eachEntry()) {
      signal.throwIfAborted();
      const name = entry.fileName.replace(/\\/g, '/');
      if (name.endsWith('/') || name.startsWith('__MACOSX/')) continue;
      const target = path.resolve(root, name);
      if (!target.startsWith(`${root}${path.sep}`))
        throw new PluginError(`The ZIP holds a file outside its own folder: ${JSON.stringify(name.slice(0, 100))}`);
      await mkdir(path.dirname(target), { recursive: true });
      await pipeline(await zip.openReadStreamPromise(entry), createWriteStream(target), { signal });
      files.push(name);
    }
  } finally {
    zip.close();
  }
  return files;
}

/** The page to render for an `html` or `zip` input: from memory when small, else unpacked to the work folder. */
export async function documentSource(
  input: PluginInput,
  ctx: RunContext,
  onBlocked?: (url: string) => void,
): Promise<PageSource> {
  if (input.bytes <= IN_MEMORY_BYTES) {
    if (input.format !== 'zip')
      return memorySource(new Map([['index.html', await readFile(input.path)]]), 'index.html', onBlocked);
    const files = await readSmallZip(input.path, ctx.signal);
    if (files) return memorySource(files, entryOf([...files.keys()]), onBlocked);
  }
  const root = path.join(ctx.workDir, 'site');
  await mkdir(root, { recursive: true });
  if (input.format !== 'zip') {
    await copyFile(input.path, path.join(root, 'index.html'));
    return folderSource(root, 'index.html', onBlocked);
  }
  return folderSource(root, entryOf(await unpack(input.path, root, ctx.signal)), onBlocked);
}
