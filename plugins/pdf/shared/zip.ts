/** ZIP output for the ops that return several files (split-pdf, extract-images). */
import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { ZipFile } from 'yazl';

export interface ZipEntry {
  /** File on disk. */
  path: string;
  /** Name inside the archive. */
  name: string;
  /** Deflate it; off for data that is compressed already (PNG, JPEG). */
  compress: boolean;
}

export async function writeZip(entries: readonly ZipEntry[], output: string, signal: AbortSignal): Promise<void> {
  const zip = new ZipFile();
  for (const entry of entries) zip.addFile(entry.path, entry.name, { compress: entry.compress });
  zip.end();
  await pipeline(zip.outputStream, createWriteStream(output), { signal });
  // pipeline stops watching the signal once the data is written: an abort during the close lands here.
  signal.throwIfAborted();
}
