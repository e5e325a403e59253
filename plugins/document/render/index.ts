/**
 * Office, web and slide files -> Markdown, HTML, text or the model as JSON, all rendered from the
 * document model (so `to=md` from a DOCX keeps its heading styles, tables and list levels).
 * Pairs other plugins own are left to them: DOCX/ODT/RTF -> TXT (LibreOffice), and spreadsheets,
 * whose `to=json` keeps the spec's meaning (records) and whose text is their CSV.
 */
import { definePlugin } from '../../../core/contract/index.js';
import type { FormatId } from '../../../schema/index.js';
import { documentFamily } from '../shared/family.js';
import { renderOptions } from './options.js';

const OWNED_ELSEWHERE = new Set(['docx>txt', 'odt>txt', 'rtf>txt']);

export const documentRenderPlugin = definePlugin({
  ...documentFamily,
  id: 'document-render',
  kind: 'convert',
  title: 'Documents to Markdown, HTML, text or JSON (through the document model)',
  inputs: ['docx', 'odt', 'rtf', 'epub', 'html', 'md', 'pptx'],
  outputs: ['md', 'html', 'txt', 'json'],
  supports: (from: FormatId, to: FormatId) => !OWNED_ELSEWHERE.has(`${from}>${to}`),
  options: renderOptions,
  plan: 'pro',
  run: async (inputs, _options, ctx) => (await import('./run.js')).render(inputs, ctx),
});
