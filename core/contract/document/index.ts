/**
 * The document model's toolkit for readers and renderers (plugins, third parties included): build
 * and number a model, render it as Markdown, HTML or text, cut it into chunks for retrieval.
 */
export { cleanText, finishDocument, tableText, walkBlocks, type DraftBlock, type DraftDocument } from './build.js';
export { chunkDocument, type ChunkOptions } from './chunk.js';
export { renderHtml, renderMarkdown, renderText, tableGrid, type MarkdownRendering } from './render.js';
export { TOKENIZER_IDS, loadTokenizer, wordsTokenizer, type Tokenizer, type TokenizerId } from './tokenizers.js';
export { chunkOptions, structureOptions, type ChunkOptionValues } from './options.js';
export { MAX_RESULT_BYTES, writeChunks, writeRendering, writeStructure } from './output.js';
export { chunkRun, renderRun, structureRun } from './run.js';
