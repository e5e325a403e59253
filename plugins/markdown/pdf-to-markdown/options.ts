/** The tool's wire options are the engine's own (shared/options.ts), which the CLI takes too. */
export { markdownOptions as pdfToMarkdownOptions } from '../shared/options.js';
