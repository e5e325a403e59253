/** The markdown family on the project's PDF -> Markdown engine: PDF to Markdown rows, and PDF to editable DOCX. */
import type { Plugin } from '../../core/contract/index.js';
import { pdfToDocxPlugin } from './pdf-to-docx/index.js';
import { pdfToMarkdownPlugin } from './pdf-to-markdown/index.js';

export const markdownPlugins: Plugin[] = [pdfToMarkdownPlugin, pdfToDocxPlugin];
