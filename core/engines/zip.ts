/**
 * A guard for ZIP-based documents (XLSX, DOCX, ODS...) before a library loads them whole.
 * ExcelJS (through JSZip) inflates every member into memory and trusts nothing it could check:
 * a 3 MB workbook whose sheet inflates to 1 GB, or whose headers claim 1 kB and inflate to 1 GB,
 * exhausts the run's memory before any row limit applies. This reads the central directory
 * (declared sizes, member count) and then inflates each member once, counting, with yauzl's size
 * validation: a member that inflates past its declared size fails at that point, so lying headers
 * cost at most the declared total.
 */
import yauzl from 'yauzl';
import { PluginError } from '../contract/index.js';
import { megabytes } from '../../schema/index.js';

export interface ZipLimits {
  /** The most all members may inflate to together, in bytes. */
  maxInflatedBytes: number;
  /** The most members the archive may hold. */
  maxEntries: number;
  /** What the file is, for messages ("spreadsheet", "document"). */
  label: string;
  signal: AbortSignal;
  /** The message for a file that is not a readable ZIP (default: names `label`). */
  unreadable?: string;
}

/** A ZIP read entry by entry on demand, sizes checked as members inflate; the caller closes it. */
export function openZip(file: string): Promise<yauzl.ZipFile> {
  return yauzl.openPromise(file, {
    lazyEntries: true,
    autoClose: false,
    validateEntrySizes: true,
    strictFileNames: false,
  });
}

/**
 * Throws PluginError when the archive is not a readable ZIP, holds more than `maxEntries`
 * members, or would inflate past `maxInflatedBytes` (declared or actual).
 */
export async function assertZipWithinLimits(
  file: string,
  { maxInflatedBytes, maxEntries, label, signal, unreadable }: ZipLimits,
): Promise<void> {
  signal.throwIfAborted();
  const damaged = unreadable ?? `The ${label} could not be read: it is damaged or not a ZIP-based file`;
  let zip: yauzl.ZipFile;
  try {
    zip = await openZip(file);
  } catch (err) {
    throw new PluginError(damaged, { cause: err });
  }
  const tooLarge = () =>
    new PluginError(
      `The ${label} is too large once decompressed: over ${megabytes(maxInflatedBytes)} MB (it may be a ` +
        `decompression bomb)`,
    );
  try {
    if (zip.entryCount > maxEntries) {
      throw new PluginError(
        `The ${label} holds ${zip.entryCount.toLocaleString('en-US')} parts (limit ` +
          `${maxEntries.toLocaleString('en-US')})`,
      );
    }
    const entries: yauzl.Entry[] = [];
    let declared = 0;
    for await (const entry of zip.eachEntry()) {
      declared += entry.uncompressedSize;
      if (declared > maxInflatedBytes) throw tooLarge();
      entries.push(entry);
    }
    // Sizes in the headers can lie: inflate each member once and count what really comes out.
    let inflated = 0;
    for (const entry of entries) {
      if (entry.fileName.endsWith('/')) continue;
      for await (const chunk of await zip.openReadStreamPromise(entry)) {
        signal.throwIfAborted();
        inflated += (chunk as Buffer).length;
        if (inflated > maxInflatedBytes) throw tooLarge();
      }
    }
  } catch (err) {
    if (err instanceof PluginError || signal.aborted) throw err;
    if (/too many bytes/i.test((err as Error).message)) {
      throw new PluginError(
        `The ${label} is damaged: a part decompresses to more than its declared size (it may be a decompression bomb)`,
        { cause: err },
      );
    }
    throw new PluginError(damaged, { cause: err });
  } finally {
    zip.close();
  }
}
