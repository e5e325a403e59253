/** The redact family: op redact on MuPDF WASM. */
import type { Plugin } from '../../core/contract/index.js';
import { redactPlugin } from './redact/index.js';

export const redactPlugins: Plugin[] = [redactPlugin];
