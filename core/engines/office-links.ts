/**
 * Links a document makes to content outside itself are cut before LibreOffice opens it.
 *
 * The profile settings (libreoffice.ts) stop Writer from loading what a Writer document only links to, but
 * Calc's and Impress's drawing layer loads a linked picture (`draw:image xlink:href="file:///..."`) whatever
 * they say, and an RTF field (`INCLUDEPICTURE "/path"`, `INCLUDETEXT`) pulls a server file into a PDF, DOCX or
 * ODT. Inside the jail that reaches system files only; without it, any file the service can read and any URL.
 * So the input itself is rewritten first:
 * - ODF (ODT, ODS, ODP, ODG): in every XML part, a link attribute (`*:href`, `form:image-data`) whose target is
 *   outside the package (a scheme, an absolute or parent path, a backslash, once XML- and percent-decoded) is
 *   emptied, except on hyperlinks and event listeners (followed on a click, never loaded). Pictures stored in the
 *   package are relative names and stay.
 * - RTF: a field whose instruction loads something (INCLUDEPICTURE, INCLUDETEXT, INCLUDE, IMPORT, LINK, DDE,
 *   DDEAUTO) loses its instruction and keeps its result: what the field showed when it was saved.
 */
import { createWriteStream } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { strFromU8, unzipSync } from 'fflate';
import yauzl from 'yauzl';
import yazl from 'yazl';
import { PluginError } from '../contract/index.js';

/** The ODF packages LibreOffice reads, by extension. */
const ODF_EXTENSIONS = new Set(['.odt', '.ods', '.odp', '.odg', '.ott', '.ots', '.otp', '.otg']);
const RTF_EXTENSIONS = new Set(['.rtf']);

/** Whether `input` (by its extension) is a format whose links are cut here. */
export function hasLinksToCut(input: string): boolean {
  const extension = path.extname(input).toLowerCase();
  return ODF_EXTENSIONS.has(extension) || RTF_EXTENSIONS.has(extension);
}

/**
 * A copy of `input` with its outside links cut, written as `<dir>/<input's name>` (LibreOffice names its output
 * after the input); `input` itself when its format has none to cut. PluginError when an ODF package cannot be read.
 */
export async function withoutOutsideLinks(input: string, dir: string): Promise<string> {
  const extension = path.extname(input).toLowerCase();
  if (!ODF_EXTENSIONS.has(extension) && !RTF_EXTENSIONS.has(extension)) return input;
  await mkdir(dir, { recursive: true });
  const output = path.join(dir, path.basename(input));
  if (RTF_EXTENSIONS.has(extension)) await writeFile(output, rtfWithoutLoadingFields(await readFile(input)));
  else if (await isEncryptedPackage(input)) return input;
  else await rewritePackage(input, output);
  return output;
}

/**
 * An ODF package whose parts are encrypted: its XML cannot be read before LibreOffice decrypts it with the
 * job's password, so it is handed over as it is (the profile's link settings and the jail still apply).
 */
async function isEncryptedPackage(input: string): Promise<boolean> {
  try {
    const parts = unzipSync(await readFile(input), { filter: (file) => file.name === 'META-INF/manifest.xml' });
    const manifest = parts['META-INF/manifest.xml'];
    return manifest !== undefined && strFromU8(manifest).includes('encryption-data');
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------------------------------------
// ODF

/** Elements whose link is followed on a click only: hyperlinks and event listeners. */
const FOLLOWED_ONLY = /^(?:text:a|draw:a|office:event-listener|presentation:event-listener|script:event-listener)$/;
/** Link attributes, under any namespace prefix (a document may bind the XLink namespace to another one). */
const LINK_ATTRIBUTE = /(\s)([\w.-]+:(?:href|image-data))(\s*=\s*)("[^"]*"|'[^']*')/g;
const PREDEFINED_ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/** An attribute value as the XML parser gives it; undefined when it uses an entity the document defines itself. */
function decodeAttribute(raw: string): string | undefined {
  let unknown = false;
  const text = raw.replace(/&(#x[0-9a-f]+|#[0-9]+|[\w.-]+);?/gi, (_, ref: string) => {
    if (ref[0] === '#') {
      const code = ref[1] === 'x' || ref[1] === 'X' ? Number.parseInt(ref.slice(2), 16) : Number(ref.slice(1));
      return Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : '';
    }
    const known = PREDEFINED_ENTITIES[ref];
    if (known === undefined) unknown = true;
    return known ?? '';
  });
  return unknown ? undefined : text;
}

function percentDecoded(text: string): string {
  let current = text;
  // Decoded until stable: "%252F" is "%2F" after one round, "/" after two.
  for (let round = 0; round < 5; round++) {
    const next = current.replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
    if (next === current) break;
    current = next;
  }
  return current;
}

/** Whether a link target points outside the package: anything but a relative name inside it (or a #bookmark). */
export function pointsOutside(target: string): boolean {
  const value = percentDecoded(target).trim();
  if (value === '' || value.startsWith('#')) return false;
  return (
    /^[a-z][\w+.-]*:/i.test(value) ||
    value.startsWith('/') ||
    value.includes('\\') ||
    value.split('/').some((segment) => segment === '..') ||
    // Characters no package name holds, which some URL parsers drop or reinterpret.
    [...value].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f)
  );
}

/** One XML part with every loading link to outside the package emptied (text kept byte for byte otherwise). */
export function xmlWithoutOutsideLinks(xml: string): string {
  return xml.replace(
    LINK_ATTRIBUTE,
    (whole, space: string, name: string, equals: string, quoted: string, at: number) => {
      const value = decodeAttribute(quoted.slice(1, -1));
      if (value !== undefined && !pointsOutside(value)) return whole;
      const start = xml.lastIndexOf('<', at);
      const element = /^<([\w.-]+:[\w.-]+)/.exec(xml.slice(start, start + 200))?.[1] ?? '';
      if (value !== undefined && FOLLOWED_ONLY.test(element)) return whole;
      return `${space}${name}${equals}""`;
    },
  );
}

/** Encodings in which every ASCII character is itself: the rewriting above reads the part byte for byte. */
const ASCII_COMPATIBLE = /^(?:utf-?8|us-ascii|ascii|iso-?8859-\d+|iso_8859-\d+|latin-?1|windows-125\d|cp125\d)$/i;

/**
 * Why an XML part cannot be rewritten safely, if it cannot: another encoding (UTF-16, UTF-7... where a link's
 * characters are not its bytes) or a DTD (whose entities could stand for any text, or a file). LibreOffice never
 * writes either in an OpenDocument file.
 */
export function unsafeXmlPart(xml: Buffer): string | undefined {
  const head = xml.subarray(0, 4);
  if (head.includes(0) || (head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff))
    return 'a part of it is not UTF-8 XML';
  const text = xml.toString('latin1');
  const declared = /^(?:\xef\xbb\xbf)?\s*<\?xml[^>]*?\bencoding\s*=\s*["']([^"']*)["']/.exec(text)?.[1];
  if (declared !== undefined && !ASCII_COMPATIBLE.test(declared.trim())) return 'a part of it is not UTF-8 XML';
  if (/<!DOCTYPE|<!ENTITY/i.test(text)) return 'it declares a DTD, which OpenDocument files do not use';
  return undefined;
}

/** Copy the package entry by entry, the XML parts rewritten (latin1 keeps every byte as it was). */
async function rewritePackage(input: string, output: string): Promise<void> {
  const unreadable = 'The document could not be read: it is damaged or not an OpenDocument file';
  let zip: yauzl.ZipFile;
  try {
    zip = await yauzl.openPromise(input, { lazyEntries: true, autoClose: false, strictFileNames: false });
  } catch (err) {
    throw new PluginError(unreadable, { cause: err });
  }
  const out = new yazl.ZipFile();
  const written = pipeline(out.outputStream, createWriteStream(output));
  try {
    for await (const entry of zip.eachEntry()) {
      if (entry.fileName.endsWith('/')) {
        out.addEmptyDirectory(entry.fileName);
        continue;
      }
      // The mimetype entry stays first and stored (ODF readers check it).
      const options = { compress: entry.fileName !== 'mimetype' };
      if (/\.(xml|rdf)$/i.test(entry.fileName)) {
        const chunks: Buffer[] = [];
        for await (const chunk of await zip.openReadStreamPromise(entry)) chunks.push(chunk as Buffer);
        const bytes = Buffer.concat(chunks);
        const unsafe = unsafeXmlPart(bytes);
        if (unsafe) throw new PluginError(`The document could not be converted: ${unsafe}`);
        out.addBuffer(Buffer.from(xmlWithoutOutsideLinks(bytes.toString('latin1')), 'latin1'), entry.fileName, options);
      } else {
        // Pictures and the rest are streamed through when the writer gets to them.
        out.addReadStreamLazy(entry.fileName, options, (callback) => {
          zip.openReadStream(entry, callback as (err: Error | null, stream: NodeJS.ReadableStream) => void);
        });
      }
    }
    out.end();
    await written;
  } catch (err) {
    (out.outputStream as unknown as { destroy(): void }).destroy();
    await written.catch(() => undefined);
    if (err instanceof PluginError) throw err;
    throw new PluginError(unreadable, { cause: err });
  } finally {
    zip.close();
  }
}

// ---------------------------------------------------------------------------------------------
// RTF

/** Field instructions that read a file or another program's data. */
const LOADING_FIELDS = /^(?:INCLUDEPICTURE|INCLUDETEXT|INCLUDE|IMPORT|LINK|DDE|DDEAUTO)$/i;

/** The end (index after its closing brace) of the group opening at `open`; the text's length when unclosed. */
function groupEnd(rtf: string, open: number): number {
  let depth = 0;
  for (let i = open; i < rtf.length; i++) {
    const c = rtf[i];
    if (c === '\\') i++;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return i + 1;
  }
  return rtf.length;
}

/** The plain text of an RTF fragment: control words dropped, `\'hh` and `\uN` decoded, escapes resolved. */
function rtfText(fragment: string): string {
  return fragment
    .replace(/\\'([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)))
    .replace(/\\u(-?\d+) ?\??/g, (_, code: string) => String.fromCharCode((Number(code) + 65536) % 65536))
    .replace(/\\([\\{}])/g, '$1')
    .replace(/\\[a-z]+-?\d* ?/gi, '')
    .replace(/\\[^a-z]/gi, '')
    .replace(/[{}]/g, '');
}

/**
 * The RTF with every loading field's instruction group turned into an ignorable destination (`{\*\...}`), so
 * readers skip it and show the field's saved result instead.
 */
export function rtfWithoutLoadingFields(data: Buffer): Buffer {
  const rtf = data.toString('latin1');
  let result = '';
  let copied = 0;
  const instruction = /\\fldinst(?![a-z])/gi;
  for (let match = instruction.exec(rtf); match; match = instruction.exec(rtf)) {
    const open = rtf.lastIndexOf('{', match.index);
    if (open < 0) continue;
    const end = groupEnd(rtf, open);
    const words = rtfText(rtf.slice(match.index + match[0].length, end))
      .trim()
      .split(/\s+/);
    if (!LOADING_FIELDS.test(words[0] ?? '')) continue;
    result += `${rtf.slice(copied, open)}{\\*\\transmuteremovedfield}`;
    copied = end;
    instruction.lastIndex = end;
  }
  return copied === 0 ? data : Buffer.from(result + rtf.slice(copied), 'latin1');
}
