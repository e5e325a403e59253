/**
 * The formats file-search reads and the row's `kind` for each. Light on purpose: the manifest
 * lists its inputs and sizes its deadline from this table without loading the readers.
 */
import type { FormatId } from '../../../schema/index.js';

export const SEARCH_KINDS = {
  txt: 'text',
  md: 'text',
  csv: 'text',
  json: 'text',
  pdf: 'pdf',
  docx: 'document',
  odt: 'document',
  xlsx: 'spreadsheet',
  ods: 'spreadsheet',
  png: 'image',
  jpg: 'image',
  jpeg: 'image',
  tiff: 'image',
  webp: 'image',
} as const satisfies Partial<Record<FormatId, string>>;

export type SearchableFormat = keyof typeof SEARCH_KINDS;
export const SEARCHABLE_FORMATS = Object.keys(SEARCH_KINDS) as SearchableFormat[];
