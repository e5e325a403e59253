import { pdfPageOptions } from '../shared/options.js';

/** html-to-pdf takes the page options. */
export const htmlToPdfOptions = pdfPageOptions;
