/**
 * The markdown family on the project's PDF -> Markdown engine: PDF to Markdown rows, PDF to editable DOCX, and the
 * PDF as data (op=structure, op=chunk, to=md|html|json from the document model); images as data the same way,
 * through OCR.
 */
import type { Plugin } from '../../core/contract/index.js';
import { pdfToDocxPlugin } from './pdf-to-docx/index.js';
import { pdfChunkPlugin } from './pdf-chunk/index.js';
import { pdfRenderPlugin } from './pdf-render/index.js';
import { pdfStructurePlugin } from './pdf-structure/index.js';
import { pdfToMarkdownPlugin } from './pdf-to-markdown/index.js';
import { imageChunkPlugin } from './image-chunk/index.js';
import { imageRenderPlugin } from './image-render/index.js';
import { imageStructurePlugin } from './image-structure/index.js';

export const markdownPlugins: Plugin[] = [
  pdfToMarkdownPlugin,
  pdfToDocxPlugin,
  pdfStructurePlugin,
  pdfChunkPlugin,
  pdfRenderPlugin,
  imageStructurePlugin,
  imageChunkPlugin,
  imageRenderPlugin,
];
