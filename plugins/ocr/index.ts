/** The ocr family: a searchable text layer over scanned PDFs. */
import type { Plugin } from '../../core/contract/index.js';
import { ocrPlugin } from './ocr/index.js';

export const ocrPlugins: Plugin[] = [ocrPlugin];
