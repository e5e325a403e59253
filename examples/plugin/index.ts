/**
 * A third-party plugin for Transmute: CSV <-> TSV. TSV is not a built-in format, so the plugin
 * declares it (with its sniffer) and the service then accepts `.tsv` uploads and `to=tsv`.
 * It imports Transmute only through the package's exports; load it with
 * `PLUGINS=./examples/plugin/index.ts npm start`.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { z } from 'zod';
import { defineFormat, definePlugin, PluginError } from 'transmute/contract';

export const tsv = defineFormat({
  id: 'tsv',
  category: 'data',
  mime: 'text/tab-separated-values',
  text: true,
  // Text (no NUL byte) with a tab in its first line.
  sniff: (head) => !head.includes(0) && /^[^\n]*\t/.test(head.toString('utf8')),
});

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

export default definePlugin({
  id: 'example-tsv',
  kind: 'convert',
  title: 'CSV <-> TSV',
  inputs: ['csv', tsv.id],
  outputs: ['csv', tsv.id],
  formats: [tsv],
  options: z.object({ trimSpaces: z.boolean().default(false).describe('Remove spaces around every field') }),
  plan: 'free',
  licenses: ['MIT'], // csv-parse
  engines: [],
  limits: { timeoutMs: 30_000, concurrency: 2 },
  async run(inputs, { trimSpaces }, ctx) {
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
    ctx.progress(100);
    return { path: output, format: ctx.target };
  },
});
