/** What op=thumbnail reads and writes: light lists the manifest and the run share. */
import type { FormatId } from '../../../schema/index.js';

export const IMAGE_INPUTS = [
  'jpg',
  'jpeg',
  'png',
  'webp',
  'gif',
  'tiff',
  'avif',
  'svg',
] as const satisfies readonly FormatId[];
export const VIDEO_INPUTS = [
  'mp4',
  'mov',
  'webm',
  'mkv',
  'avi',
  'm4v',
  'wmv',
  'flv',
  'mpeg',
  'ts',
  'ogv',
  '3gp',
] as const satisfies readonly FormatId[];
/** Office inputs and the PDF export filter of their LibreOffice module. */
export const OFFICE_EXPORT: Partial<Record<FormatId, string>> = {
  docx: 'writer_pdf_Export',
  doc: 'writer_pdf_Export',
  odt: 'writer_pdf_Export',
  rtf: 'writer_pdf_Export',
  xlsx: 'calc_pdf_Export',
  xls: 'calc_pdf_Export',
  ods: 'calc_pdf_Export',
  pptx: 'impress_pdf_Export',
  ppt: 'impress_pdf_Export',
  odp: 'impress_pdf_Export',
};
export const OFFICE_INPUTS = Object.keys(OFFICE_EXPORT) as FormatId[];
export const THUMBNAIL_OUTPUTS = ['png', 'webp', 'jpg'] as const satisfies readonly FormatId[];
