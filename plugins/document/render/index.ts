/**
 * Office, web and slide files -> Markdown, HTML, text or the model as JSON, all rendered from the
 * document model (so `to=md` from a DOCX keeps its heading styles, tables and list levels).
 * Spreadsheets render as md and html (a table per sheet). Pairs other plugins own are left to them:
 * DOCX/ODT/RTF -> TXT (LibreOffice); a spreadsheet's `to=json` keeps the spec's meaning (records).
 */
import { definePlugin } from '../../../core/contract/index.js';
import type { FormatId } from '../../../schema/index.js';
import { documentFamily } from '../shared/family.js';
import { renderOptions } from './options.js';

const OWNED_ELSEWHERE = new Set(['docx>txt', 'odt>txt', 'rtf>txt']);
const SHEETS = new Set<FormatId>(['xlsx', 'ods', 'csv']);

export const documentRenderPlugin = definePlugin({
  ...documentFamily,
  id: 'document-render',
  kind: 'convert',
  title: 'Documents to Markdown, HTML, text or JSON (through the document model)',
  inputs: ['docx', 'odt', 'rtf', 'epub', 'html', 'md', 'pptx', 'xlsx', 'ods', 'csv'],
  outputs: ['md', 'html', 'txt', 'json'],
  supports: (from: FormatId, to: FormatId) =>
    !OWNED_ELSEWHERE.has(`${from}>${to}`) && !(SHEETS.has(from) && (to === 'json' || to === 'txt')),
  options: renderOptions,
  plan: 'pro',
  run: async (inputs, _options, ctx) => (await import('./run.js')).render(inputs, ctx),
});
