/**
 * data-convert against hostile tables (the cases of test/hostile.e2e.test.ts that found these):
 * wide and repetitive headers stay linear, __proto__ is a column like any other, XLSX keeps to
 * Excel's column limit, workbooks that are decompression bombs and JSON nested past the stack
 * fail with a clear PluginError, quickly.
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PluginError, type FileResult } from '../../../core/contract/index.js';
import { runPlugin } from '../../../core/contract/testing/index.js';
import type { FormatId } from '../../../schema/index.js';
import { csvWide, jsonDeepArrays, xlsxRowBomb } from '../../../test/fixtures/hostile.js';
import { dataConvertPlugin } from './index.js';
import { uniqueHeader } from '../shared/table.js';

const dir = await mkdtemp(path.join(os.tmpdir(), 'data-hostile-'));

async function convert(name: string, data: Buffer | string, format: FormatId, target: FormatId) {
  const file = path.join(dir, name);
  await writeFile(file, data);
  return runPlugin(dataConvertPlugin, [{ path: file, format }], {}, { target });
}

describe('data-convert on hostile tables', () => {
  it('de-duplicates 150,000 equal column names in linear time', () => {
    const started = Date.now();
    const header = uniqueHeader(
      Array.from({ length: 150_000 }, () => 'a'),
      150_000,
    );
    // Linear takes milliseconds; a quadratic pass (10^10 steps) takes minutes. This bound only catches that.
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(header.slice(0, 3)).toEqual(['a', 'a_2', 'a_3']);
    expect(new Set(header).size).toBe(150_000);
    expect(uniqueHeader(['a', 'a', 'a_3', 'a'], 4)).toEqual(['a', 'a_2', 'a_3', 'a_4']);
  });

  it('keeps __proto__ and constructor columns in JSON', async () => {
    const run = await convert('proto.csv', '__proto__,constructor,toString\n1,2,3\n', 'csv', 'json');
    expect(JSON.parse(await readFile((run.result as FileResult).path, 'utf8'))).toEqual([
      JSON.parse('{"__proto__":"1","constructor":"2","toString":"3"}'),
    ]);
  });

  it('refuses more columns than XLSX holds, and writes them all to JSON', async () => {
    await expect(convert('wide.csv', csvWide(150_000), 'csv', 'xlsx')).rejects.toThrow(
      "Too many columns for XLSX: 150,000 (Excel's limit is 16,384)",
    );
    const run = await convert('wide2.csv', csvWide(20_000, 1), 'csv', 'json');
    expect(Object.keys(JSON.parse(await readFile((run.result as FileResult).path, 'utf8'))[0])).toHaveLength(20_000);
  });

  it('refuses an XLSX that inflates to 1 GB, before loading it', async () => {
    const error = await convert('bomb.xlsx', xlsxRowBomb(1_000_000_000), 'xlsx', 'csv').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PluginError);
    expect((error as Error).message).toMatch(/too large once decompressed/);
  });

  it('refuses JSON nested too deeply to write, with a PluginError', async () => {
    const error = await convert('deep.json', jsonDeepArrays(100_000, true), 'json', 'csv').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PluginError);
    expect((error as Error).message).toBe('A value in the JSON is nested too deeply to convert');
  });
});
