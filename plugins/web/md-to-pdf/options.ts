import { pdfPageOptions } from '../shared/options.js';

/** md-to-pdf takes the page options. */
export const mdToPdfOptions = pdfPageOptions;
