/**
 * The PDF tools on qpdf, ghostscript, poppler and pdf-lib: page operations, passwords, compression, extraction, repair,
 * merge, watermark removal.
 */
import type { Plugin } from '../../core/contract/index.js';
import { pdfCleanMetadataPlugin } from './clean-metadata/index.js';
import { compressPdfPlugin } from './compress-pdf/index.js';
import { deletePagesPlugin } from './delete-pages/index.js';
import { extractImagesPlugin } from './extract-images/index.js';
import { extractPagesPlugin } from './extract-pages/index.js';
import { mergePdfPlugin } from './merge-pdf/index.js';
import { pdfToPdfaPlugin } from './pdf-to-pdfa/index.js';
import { pdfToTextPlugin } from './pdf-to-text/index.js';
import { protectPdfPlugin } from './protect-pdf/index.js';
import { removeWatermarkPlugin } from './remove-watermark/index.js';
import { repairPdfPlugin } from './repair-pdf/index.js';
import { rotatePdfPlugin } from './rotate-pdf/index.js';
import { splitPdfPlugin } from './split-pdf/index.js';
import { unlockPdfPlugin } from './unlock-pdf/index.js';

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
