import { outlineOption, pdfPageOptions } from '../shared/options.js';

/**
 * md-to-pdf takes the page options, with an outline by default: a Markdown document's headings are its sections. (No
 * failOnConsoleExceptions: the Markdown's raw HTML is shown as text, so no script of its runs.)
 */
export const mdToPdfOptions = pdfPageOptions.extend({ outline: outlineOption(true) });
