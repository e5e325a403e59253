/**
 * The page count a DOCX or PPTX carries in docProps/app.xml (`<Pages>`, `<Slides>`), as its
 * authoring program saved it: read from the ZIP's central directory and one small member, never
 * by laying the document out. A file without the count, or not a readable ZIP, gives undefined.
 */
import yauzl from 'yauzl';
import type { PluginInput } from '../../../core/contract/index.js';

const APP_PROPERTIES = 'docProps/app.xml';
/** app.xml is a few hundred bytes; anything far larger is not one worth reading here. */
const MAX_APP_XML_BYTES = 256 * 1024;
/** Members looked through for app.xml (it comes early in real files). */
const MAX_ENTRIES_SCANNED = 10_000;
const COUNT_ELEMENT: Partial<Record<string, RegExp>> = {
  docx: /<(?:\w+:)?Pages>\s*(\d{1,9})\s*</,
  pptx: /<(?:\w+:)?Slides>\s*(\d{1,9})\s*</,
};

export async function savedPageCount(input: PluginInput, signal: AbortSignal): Promise<number | undefined> {
  const pattern = COUNT_ELEMENT[input.format];
  if (!pattern) return undefined;
  let zip: yauzl.ZipFile | undefined;
  try {
    zip = await yauzl.openPromise(input.path, { lazyEntries: true, autoClose: false, validateEntrySizes: true });
    let scanned = 0;
    for await (const entry of zip.eachEntry()) {
      signal.throwIfAborted();
      if (++scanned > MAX_ENTRIES_SCANNED) return undefined;
      if (entry.fileName !== APP_PROPERTIES) continue;
      if (entry.uncompressedSize > MAX_APP_XML_BYTES) return undefined;
      const chunks: Buffer[] = [];
      for await (const chunk of await zip.openReadStreamPromise(entry)) chunks.push(chunk as Buffer);
      const count = pattern.exec(Buffer.concat(chunks).toString('utf8'))?.[1];
      return count === undefined ? undefined : Number(count);
    }
    return undefined;
  } catch {
    return undefined;
  } finally {
    zip?.close();
  }
}
