/** Redaction of PDFs: op redact (MuPDF WASM). */
import { definePlugin, scaledTimeout, type Plugin } from '../../core/contract/index.js';
import { QPDF } from '../../core/engines/qpdf.js';
import { redactOptions } from './options.js';
import { runRedact } from './run.js';

export const redactPlugin = definePlugin({
  id: 'pdf-redact',
  kind: 'tool',
  op: 'redact',
  title: 'Redact a PDF (matched text removed)',
  inputs: ['pdf'],
  options: redactOptions,
  plan: 'pro',
  // What it links: mupdf (MuPDF compiled to WASM, AGPL-3.0-or-later).
  licenses: ['AGPL-3.0-or-later'],
  engines: [QPDF],
  // MuPDF reads and rewrites every page in memory: 75 ms for a small document, a few seconds per MB of dense pages.
  limits: { timeoutMs: scaledTimeout({ baseMs: 60_000, perMbMs: 10_000 }), concurrency: 2, memoryMb: 1536 },
  run: runRedact,
});

export const redactPlugins: Plugin[] = [redactPlugin];
