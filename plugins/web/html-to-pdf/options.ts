import { htmlPdfOptions } from '../shared/options.js';

/** html-to-pdf takes the page options; no outline unless asked (a web page's headings are often layout). */
export const htmlToPdfOptions = htmlPdfOptions;
