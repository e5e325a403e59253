/**
 * What op=structure and op=chunk hand back, whatever the reader: the file the download serves
 * (the model as JSON, the chunks as JSON Lines) and the same data as the job's `result`.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Chunk, Document } from '../../../schema/index.js';
import type { FileResult } from '../index.js';
import { renderHtml, renderMarkdown, renderText } from './render.js';

/**
 * The most JSON a job's status carries as `result` (it is stored with the job and sent on every
 * poll); past it `result` says so and the download holds the whole.
 */
export const MAX_RESULT_BYTES = 8 * 1024 * 1024;

function resultOf(value: Record<string, unknown>, json: string, what: string): Record<string, unknown> {
  if (Buffer.byteLength(json) <= MAX_RESULT_BYTES) return value;
  return { omitted: `The ${what} is over ${MAX_RESULT_BYTES / 1024 / 1024} MB: download it from downloadUrl` };
}

export async function writeStructure(document: Document, workDir: string, basename = 'document'): Promise<FileResult> {
  const json = JSON.stringify(document);
  const file = path.join(workDir, `${basename}.json`);
  await writeFile(file, json);
  return {
    path: file,
    format: 'json',
    result: resultOf(document as unknown as Record<string, unknown>, json, 'document model'),
  };
}

export async function writeChunks(chunks: Chunk[], workDir: string, basename = 'chunks'): Promise<FileResult> {
  const lines = chunks.map((chunk) => JSON.stringify(chunk));
  const file = path.join(workDir, `${basename}.jsonl`);
  await writeFile(file, lines.length ? `${lines.join('\n')}\n` : '');
  const json = `{"chunks":[${lines.join(',')}]}`;
  return { path: file, format: 'jsonl', result: resultOf({ chunks }, json, 'chunk list') };
}

/** The model rendered as `to` (md, html, txt; json is the model itself) into the work dir. */
export async function writeRendering(
  document: Document,
  to: 'md' | 'html' | 'txt' | 'json',
  workDir: string,
  basename = 'document',
): Promise<FileResult> {
  if (to === 'json') {
    const file = path.join(workDir, `${basename}.json`);
    await writeFile(file, JSON.stringify(document));
    return { path: file, format: 'json' };
  }
  const text = to === 'md' ? renderMarkdown(document) : to === 'html' ? renderHtml(document) : renderText(document);
  const file = path.join(workDir, `${basename}.${to}`);
  await writeFile(file, text);
  return { path: file, format: to };
}
