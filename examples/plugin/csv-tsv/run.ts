/** The run code: loaded only in sandbox processes, so it may import whatever it needs (here csv-parse). */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { type FileResult, type PluginInput, PluginError, type RunContext } from 'transmute/contract';
import type { CsvTsvOptions } from './options.js';

// TSV fields cannot hold tabs or line breaks: they are written as \t, \n, \r (and \ as \\).
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };
const UNESCAPES: Record<string, string> = { '\\': '\\', t: '\t', n: '\n', r: '\r' };
const toTsvField = (field: string) => field.replace(/[\\\t\n\r]/g, (c) => ESCAPES[c]!);
const fromTsvField = (field: string) => field.replace(/\\([\\tnr])/g, (_, c: string) => UNESCAPES[c]!);
const toCsvField = (field: string) => (/[",\r\n]/.test(field) ? `"${field.replaceAll('"', '""')}"` : field);

function readRows(text: string, format: string): string[][] {
  if (format === 'tsv')
    return text
      .split(/\r?\n/)
      .filter((line) => line !== '')
      .map((line) => line.split('\t').map(fromTsvField));
  try {
    return parse(text, { relax_column_count: true, skip_empty_lines: true }) as string[][];
  } catch (err) {
    throw new PluginError(`The file is not valid CSV: ${(err as Error).message}`, { cause: err });
  }
}

export async function convertTable(
  inputs: readonly PluginInput[],
  { trimSpaces }: CsvTsvOptions,
  ctx: RunContext,
): Promise<FileResult> {
  const input = inputs[0]!;
  const text = (await readFile(input.path, { encoding: 'utf8', signal: ctx.signal })).replace(/^\uFEFF/, '');
  const rows = readRows(text, input.format).map((row) => (trimSpaces ? row.map((field) => field.trim()) : row));
  if (rows.length === 0) throw new PluginError('The file has no rows');
  ctx.progress(50);
  ctx.signal.throwIfAborted();
  const csv = ctx.target === 'csv';
  const body = rows
    .map((row) => row.map(csv ? toCsvField : toTsvField).join(csv ? ',' : '\t'))
    .join(csv ? '\r\n' : '\n');
  const output = path.join(ctx.workDir, `table.${ctx.target}`);
  await writeFile(output, `${body}${csv ? '\r\n' : '\n'}`, { signal: ctx.signal });
  // writeFile stops watching the signal after its last chunk: check before reporting success.
  ctx.signal.throwIfAborted();
  ctx.progress(100);
  return { path: output, format: ctx.target };
}
