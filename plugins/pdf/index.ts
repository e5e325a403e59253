/** The PDF tools on qpdf, ghostscript, poppler and pdf-lib: page operations, passwords, compression, extraction, repair, merge, watermark removal. */
import type { Plugin } from '../../core/contract/index.js';
import { pdfCleanMetadataPlugin } from './clean-metadata.js';
import { compressPdfPlugin } from './compress.js';
import { extractImagesPlugin } from './images.js';
import { mergePdfPlugin } from './merge.js';
import { deletePagesPlugin, extractPagesPlugin } from './pages.js';
import { pdfToPdfaPlugin } from './pdfa.js';
import { protectPdfPlugin, unlockPdfPlugin } from './password.js';
import { repairPdfPlugin } from './repair.js';
import { rotatePdfPlugin } from './rotate.js';
import { splitPdfPlugin } from './split.js';
import { pdfToTextPlugin } from './text.js';
import { removeWatermarkPlugin } from './watermark.js';

export const pdfPlugins: Plugin[] = [
  rotatePdfPlugin,
  splitPdfPlugin,
  extractPagesPlugin,
  deletePagesPlugin,
  protectPdfPlugin,
  unlockPdfPlugin,
  compressPdfPlugin,
  pdfToTextPlugin,
  extractImagesPlugin,
  repairPdfPlugin,
  pdfCleanMetadataPlugin,
  mergePdfPlugin,
  removeWatermarkPlugin,
  pdfToPdfaPlugin,
];
