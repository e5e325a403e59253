/**
 * The `metadata` and `pdfua` options of PDF-producing plugins, and how they are written into a PDF that an engine
 * made: the document information dictionary (what most viewers show) and an XMP packet saying the same (what
 * archives, search and PDF/UA validators read), plus the PDF/UA identification (`pdfuaid:part`) for `pdfua`.
 * The engine itself makes the tags (a structure tree) PDF/UA needs; this only identifies the file. pdf-lib is loaded
 * on the first write, so a manifest importing the options loads no PDF library.
 */
import { randomBytes } from 'node:crypto';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { z } from 'zod';
import { PluginError } from '../contract/index.js';

const text = (max: number) => z.string().max(max, `must be at most ${max} characters`);

export const pdfMetadataOption = z
  .strictObject({
    title: text(1_000).optional().describe('The document title.'),
    author: text(1_000).optional().describe('Who wrote the document.'),
    subject: text(2_000).optional().describe('What the document is about.'),
    keywords: z
      .array(text(200))
      .max(100, 'must hold at most 100 keywords')
      .optional()
      .describe('Keywords, e.g. ["invoice", "2026"].'),
  })
  .describe(
    'Document metadata as JSON: {"title": "...", "author": "...", "subject": "...", "keywords": ["...", "..."]}, ' +
      "written to the PDF's information dictionary and its XMP.",
  );
export type PdfMetadata = z.output<typeof pdfMetadataOption>;

export const pdfuaOption = z
  .boolean()
  .default(false)
  .describe(
    'PDF/UA (universal accessibility): a tagged PDF identified as PDF/UA-1 in its XMP (pdfuaid:part), with its title ' +
      'shown by viewers (default false).',
  );

export interface PdfMetadataEdit {
  metadata?: PdfMetadata | undefined;
  /** Identify the file as PDF/UA-1. */
  pdfua?: boolean | undefined;
}

/** Whether `edit` changes anything (a PDF is rewritten only then). */
export const editsPdfMetadata = (edit: PdfMetadataEdit): boolean =>
  edit.pdfua === true ||
  Object.values(edit.metadata ?? {}).some((value) => value !== undefined && !(Array.isArray(value) && !value.length));

const escapeXml = (value: string) =>
  value.replace(
    /[<>&"']/g,
    (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c] as string,
  );

/** XML 1.0 allows no control characters but tab, newline and carriage return. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters removed
const NOT_IN_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g;
const xmlText = (value: string) => escapeXml(value.replace(NOT_IN_XML, ''));

export interface XmpFields {
  title?: string | undefined;
  author?: string | undefined;
  subject?: string | undefined;
  keywords?: readonly string[] | undefined;
  creatorTool?: string | undefined;
  producer?: string | undefined;
  created?: Date | undefined;
  modified?: Date | undefined;
  pdfuaPart?: number | undefined;
}

/** An XMP packet stating `fields` (Dublin Core, PDF and XMP basic schemas, and the PDF/UA identification). */
export function xmpPacket(fields: XmpFields): string {
  const alt = (value: string) => `<rdf:Alt><rdf:li xml:lang="x-default">${xmlText(value)}</rdf:li></rdf:Alt>`;
  const lines = ['<dc:format>application/pdf</dc:format>'];
  if (fields.title !== undefined) lines.push(`<dc:title>${alt(fields.title)}</dc:title>`);
  if (fields.author !== undefined)
    lines.push(`<dc:creator><rdf:Seq><rdf:li>${xmlText(fields.author)}</rdf:li></rdf:Seq></dc:creator>`);
  if (fields.subject !== undefined) lines.push(`<dc:description>${alt(fields.subject)}</dc:description>`);
  if (fields.keywords?.length) {
    const items = fields.keywords.map((keyword) => `<rdf:li>${xmlText(keyword)}</rdf:li>`).join('');
    lines.push(`<dc:subject><rdf:Bag>${items}</rdf:Bag></dc:subject>`);
    lines.push(`<pdf:Keywords>${xmlText(fields.keywords.join(', '))}</pdf:Keywords>`);
  }
  if (fields.producer !== undefined) lines.push(`<pdf:Producer>${xmlText(fields.producer)}</pdf:Producer>`);
  if (fields.creatorTool !== undefined) lines.push(`<xmp:CreatorTool>${xmlText(fields.creatorTool)}</xmp:CreatorTool>`);
  if (fields.created) lines.push(`<xmp:CreateDate>${fields.created.toISOString()}</xmp:CreateDate>`);
  if (fields.modified) lines.push(`<xmp:ModifyDate>${fields.modified.toISOString()}</xmp:ModifyDate>`);
  if (fields.pdfuaPart !== undefined) lines.push(`<pdfuaid:part>${fields.pdfuaPart}</pdfuaid:part>`);
  return [
    '<?xpacket begin="\ufeff" id="W5M0MpCehiHzreSzNTczkc9d"?>',
    '<x:xmpmeta xmlns:x="adobe:ns:meta/">',
    '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">',
    '<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/" ' +
      'xmlns:pdf="http://ns.adobe.com/pdf/1.3/" xmlns:xmp="http://ns.adobe.com/xap/1.0/"' +
      `${fields.pdfuaPart !== undefined ? ' xmlns:pdfuaid="http://www.aiim.org/pdfua/ns/id/"' : ''}>`,
    ...lines,
    '</rdf:Description>',
    '</rdf:RDF>',
    '</x:xmpmeta>',
    '<?xpacket end="w"?>',
  ].join('\n');
}

/**
 * Write `edit` into the PDF at `file` (replaced whole, never left half-written): the information dictionary's Title,
 * Author, Subject and Keywords, an XMP packet stating the document's metadata (the engine's own values for what
 * `edit` leaves out), and for PDF/UA its identification and DisplayDocTitle. A PDF that cannot be read fails the run.
 */
export async function writePdfMetadata(file: string, edit: PdfMetadataEdit, signal?: AbortSignal): Promise<void> {
  if (!editsPdfMetadata(edit)) return;
  const { PDFDocument, PDFName, PDFBool, PDFDict } = await import('pdf-lib');
  let doc: Awaited<ReturnType<typeof PDFDocument.load>>;
  try {
    // The engine's Producer and dates are kept: this is metadata, not a new document.
    doc = await PDFDocument.load(await readFile(file), { updateMetadata: false });
  } catch (err) {
    throw new PluginError('The PDF could not be read to write its metadata', { cause: err });
  }
  signal?.throwIfAborted();
  const metadata = edit.metadata ?? {};
  if (metadata.title !== undefined) doc.setTitle(metadata.title);
  if (metadata.author !== undefined) doc.setAuthor(metadata.author);
  if (metadata.subject !== undefined) doc.setSubject(metadata.subject);
  // pdf-lib joins keywords with spaces; a comma keeps "annual report" one keyword to a reader.
  // An empty list (a form's untouched field) says nothing.
  const given = metadata.keywords?.length ? metadata.keywords : undefined;
  if (given) doc.setKeywords([given.join(', ')]);
  const keywords = given ?? splitKeywords(doc.getKeywords());
  const xmp = xmpPacket({
    title: doc.getTitle(),
    author: doc.getAuthor(),
    subject: doc.getSubject(),
    keywords,
    creatorTool: doc.getCreator(),
    producer: doc.getProducer(),
    created: doc.getCreationDate(),
    modified: doc.getModificationDate(),
    pdfuaPart: edit.pdfua ? 1 : undefined,
  });
  const catalog = doc.catalog;
  // XMP stays unfiltered (readable by anything that scans for the packet, as PDF/A asks).
  catalog.set(
    PDFName.of('Metadata'),
    doc.context.register(doc.context.stream(new TextEncoder().encode(xmp), { Type: 'Metadata', Subtype: 'XML' })),
  );
  if (edit.pdfua) {
    // PDF/UA: a viewer's window shows the document's title, not its file name.
    const existing = catalog.lookupMaybe(PDFName.of('ViewerPreferences'), PDFDict);
    const preferences = existing ?? doc.context.obj({});
    preferences.set(PDFName.of('DisplayDocTitle'), PDFBool.True);
    if (!existing) catalog.set(PDFName.of('ViewerPreferences'), preferences);
  }
  // No object streams: the engine's PDF version (Chromium writes 1.4) stays true of the file.
  const bytes = await doc.save({ useObjectStreams: false, updateFieldAppearances: false });
  signal?.throwIfAborted();
  const partial = `${file}.${randomBytes(4).toString('hex')}.partial`;
  try {
    await writeFile(partial, bytes);
    await rename(partial, file);
  } catch (err) {
    await rm(partial, { force: true });
    throw err;
  }
}

function splitKeywords(raw: string | undefined): string[] | undefined {
  const keywords = raw
    ?.split(/[,;]/)
    .map((keyword) => keyword.trim())
    .filter(Boolean);
  return keywords?.length ? keywords : undefined;
}
