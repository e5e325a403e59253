/** The runs every reader family shares once it holds a model: structure, chunk, render. */
import type { Document } from '../../../schema/index.js';
import type { FileResult } from '../index.js';
import { chunkDocument } from './chunk.js';
import type { ChunkOptionValues } from './options.js';
import { writeChunks, writeRendering, writeStructure } from './output.js';
import { loadTokenizer } from './tokenizers.js';

export function structureRun(document: Document, workDir: string): Promise<FileResult> {
  return writeStructure(document, workDir);
}

export async function chunkRun(document: Document, options: ChunkOptionValues, workDir: string): Promise<FileResult> {
  const chunks = chunkDocument(document, {
    maxTokens: options.maxTokens,
    overlap: options.overlap,
    mergePeers: options.mergePeers,
    tokenizer: await loadTokenizer(options.tokenizer),
  });
  return writeChunks(chunks, workDir);
}

export function renderRun(document: Document, to: string, workDir: string): Promise<FileResult> {
  if (to !== 'md' && to !== 'html' && to !== 'txt' && to !== 'json')
    throw new Error(`cannot render a document as ${to}`);
  return writeRendering(document, to, workDir);
}
