/**
 * What a printed PDF holds besides its pages, read with pdf-lib for the tests: the outline (bookmarks) as titles
 * with their depth, whether it is tagged, its information dictionary and its XMP packet.
 */
import { PDFDict, PDFDocument, PDFHexString, PDFName, PDFRawStream, PDFString, decodePDFRawStream } from 'pdf-lib';

export interface PdfStructure {
  /** Bookmarks in reading order, `depth` 1 at the top. */
  outline: Array<{ depth: number; title: string }>;
  /** MarkInfo /Marked true and a structure tree. */
  tagged: boolean;
  info: { title?: string; author?: string; subject?: string; keywords?: string };
  /** The catalog's XMP packet, decoded, or undefined. */
  xmp?: string;
  /** The catalog's /Lang. */
  lang?: string;
  displayDocTitle: boolean;
}

const textOf = (value: unknown) =>
  value instanceof PDFString || value instanceof PDFHexString ? value.decodeText() : undefined;

export async function pdfStructure(bytes: Uint8Array): Promise<PdfStructure> {
  const doc = await PDFDocument.load(bytes, { updateMetadata: false });
  const catalog = doc.catalog;
  const outline: PdfStructure['outline'] = [];
  const walk = (first: unknown, depth: number) => {
    let item = first instanceof PDFDict ? first : undefined;
    for (let guard = 0; item && guard < 10_000; guard++) {
      outline.push({ depth, title: textOf(item.lookup(PDFName.of('Title'))) ?? '' });
      walk(item.lookup(PDFName.of('First')), depth + 1);
      const next = item.lookup(PDFName.of('Next'));
      item = next instanceof PDFDict ? next : undefined;
    }
  };
  const outlines = catalog.lookup(PDFName.of('Outlines'));
  if (outlines instanceof PDFDict) walk(outlines.lookup(PDFName.of('First')), 1);
  const markInfo = catalog.lookup(PDFName.of('MarkInfo'));
  const marked = markInfo instanceof PDFDict && String(markInfo.lookup(PDFName.of('Marked'))) === 'true';
  const metadata = catalog.lookup(PDFName.of('Metadata'));
  const xmp =
    metadata instanceof PDFRawStream ? new TextDecoder().decode(decodePDFRawStream(metadata).decode()) : undefined;
  const preferences = catalog.lookup(PDFName.of('ViewerPreferences'));
  return {
    outline,
    tagged: marked && catalog.lookup(PDFName.of('StructTreeRoot')) instanceof PDFDict,
    info: {
      ...(doc.getTitle() !== undefined ? { title: doc.getTitle() } : {}),
      ...(doc.getAuthor() !== undefined ? { author: doc.getAuthor() } : {}),
      ...(doc.getSubject() !== undefined ? { subject: doc.getSubject() } : {}),
      ...(doc.getKeywords() !== undefined ? { keywords: doc.getKeywords() } : {}),
    },
    ...(xmp !== undefined ? { xmp } : {}),
    ...(textOf(catalog.lookup(PDFName.of('Lang'))) !== undefined
      ? { lang: textOf(catalog.lookup(PDFName.of('Lang'))) as string }
      : {}),
    displayDocTitle:
      preferences instanceof PDFDict && String(preferences.lookup(PDFName.of('DisplayDocTitle'))) === 'true',
  };
}
