/**
 * office-convert: office documents, spreadsheets and presentations through LibreOffice headless
 * (the service's warm listener pool, or a cold soffice per run in a private profile when the pool
 * is off or has fallen back), and DOCX/ODT -> EPUB through pandoc.
 */
import { definePlugin } from '../../../core/contract/index.js';
import { SOFFICE } from '../../../core/engines/libreoffice.js';
import { MSOFFCRYPTO } from '../../../core/engines/office-crypto.js';
import { PANDOC } from '../../../core/engines/pandoc.js';
import { QPDF } from '../../../core/engines/qpdf.js';
import { officeFamily, officePagesWork } from '../shared/family.js';
import { INPUTS, officeSupports, type OfficeInput } from './formats.js';
import { officeConvertOptions } from './options.js';

export const officeConvertPlugin = definePlugin({
  ...officeFamily,
  id: 'office-convert',
  kind: 'convert',
  title: 'Office documents, spreadsheets and presentations (LibreOffice)',
  inputs: Object.keys(INPUTS) as OfficeInput[],
  outputs: ['pdf', 'docx', 'odt', 'rtf', 'txt', 'epub', 'xlsx', 'ods', 'csv', 'pptx', 'odp'],
  supports: officeSupports,
  options: officeConvertOptions,
  plan: 'free',
  engines: [SOFFICE, PANDOC, MSOFFCRYPTO, QPDF],
  limits: { ...officeFamily.limits, work: officePagesWork },
  run: async (inputs, options, ctx) => (await import('./run.js')).convertOffice(inputs, options, ctx),
});
