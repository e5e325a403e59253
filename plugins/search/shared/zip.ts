/** Reading single members of an OOXML / OpenDocument ZIP straight from disk. */
import yauzl from 'yauzl';
import { PluginError } from '../../../core/contract/index.js';
import { MB } from '../../../schema/index.js';

/**
 * Largest member we inflate into memory. A document's main XML is rarely above a few MB;
 * the cap keeps a ZIP bomb from taking the worker down.
 */
export const MAX_MEMBER_BYTES = 256 * MB;

/** The UTF-8 text of one member, or undefined when the archive has no such member. */
export async function readZipMember(
  file: string,
  member: string,
  signal: AbortSignal,
  label: string,
): Promise<string | undefined> {
  let zip: yauzl.ZipFile;
  try {
    // validateEntrySizes (the default) makes the stream fail if a member inflates past its declared size.
    zip = await yauzl.openPromise(file, { lazyEntries: true, autoClose: false });
  } catch (err) {
    throw new PluginError(`The file could not be read: it is not a valid ${label} (damaged or not a ZIP archive)`, {
      cause: err,
    });
  }
  try {
    for await (const entry of zip.eachEntry()) {
      signal.throwIfAborted();
      if (entry.fileName !== member) continue;
      if (entry.uncompressedSize > MAX_MEMBER_BYTES) {
        throw new PluginError(`The file could not be read: its ${member} is larger than ${MAX_MEMBER_BYTES / MB} MB`);
      }
      const chunks: Buffer[] = [];
      for await (const chunk of await zip.openReadStreamPromise(entry)) {
        signal.throwIfAborted();
        chunks.push(chunk as Buffer);
      }
      return Buffer.concat(chunks).toString('utf8');
    }
    return undefined;
  } catch (err) {
    if (err instanceof PluginError || signal.aborted) throw err;
    throw new PluginError(`The file could not be read: the ${label} is damaged`, { cause: err });
  } finally {
    zip.close();
  }
}
