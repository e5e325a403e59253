/**
 * PDF/A: the `pdfa` option every PDF-producing plugin takes, and how each engine is asked for it.
 * LibreOffice writes PDF/A itself (its PDF export's SelectPdfVersion); a PDF is rewritten by
 * Ghostscript's pdfwrite in PDF/A mode with an sRGB output intent (ghostscript.ts: pdfToPdfa).
 * Neither is validated by veraPDF here: the tests check the markers (XMP pdfaid, OutputIntent,
 * embedded fonts, no encryption, no JavaScript).
 */
import { z } from 'zod';

export const PDFA_LEVELS = ['1b', '2b', '3b'] as const;
export type PdfaLevel = (typeof PDFA_LEVELS)[number];

export const pdfaOption = z
  .enum(PDFA_LEVELS, { error: `must be one of ${PDFA_LEVELS.join(', ')}` })
  .describe(
    'PDF/A conformance of the output PDF: 1b, 2b or 3b (archival; fonts embedded, no encryption or JavaScript).',
  );

/** The part number: 1b -> 1. */
export const pdfaPart = (level: PdfaLevel): number => Number(level[0]);

/** LibreOffice's PDF export options for a PDF/A level (JSON filter options, LibreOffice 7.4+). */
export function libreOfficePdfaOptions(level: PdfaLevel): string {
  return JSON.stringify({ SelectPdfVersion: { type: 'long', value: String(pdfaPart(level)) } });
}
