/** The ZIP guard: honest documents pass; declared and lying decompression bombs fail fast and clearly. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PluginError } from '../contract/index.js';
import { docxText, xlsxManyEntries, xlsxRowBomb, zip } from '../../test/fixtures/hostile.js';
import { assertZipWithinLimits } from './zip.js';

const limits = {
  maxInflatedBytes: 10_000_000,
  maxEntries: 100,
  label: 'spreadsheet',
  signal: new AbortController().signal,
};

describe('assertZipWithinLimits', () => {
  let dir: string;
  const at = async (name: string, data: Buffer) => {
    const file = path.join(dir, name);
    await writeFile(file, data);
    return file;
  };
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'zip-guard-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('passes an honest document', async () => {
    await expect(assertZipWithinLimits(await at('ok.docx', docxText(['hello'])), limits)).resolves.toBeUndefined();
  });

  it('refuses a member declared past the cap without inflating it', async () => {
    const bomb = await at('bomb.xlsx', xlsxRowBomb(1_000_000_000));
    const started = Date.now();
    const error = await assertZipWithinLimits(bomb, limits).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PluginError);
    expect((error as Error).message).toBe(
      'The spreadsheet is too large once decompressed: over 10 MB (it may be a decompression bomb)',
    );
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('refuses a member that inflates past its declared size', async () => {
    const error = await assertZipWithinLimits(await at('liar.xlsx', xlsxRowBomb(1_000_000_000, 1000)), limits).catch(
      (e: unknown) => e,
    );
    expect((error as Error).message).toMatch(/decompresses to more than its declared size/);
  });

  it('refuses too many members, and what is not a ZIP', async () => {
    await expect(assertZipWithinLimits(await at('many.xlsx', xlsxManyEntries(200)), limits)).rejects.toThrow(
      'The spreadsheet holds 205 parts (limit 100)',
    );
    await expect(
      assertZipWithinLimits(await at('no.xlsx', Buffer.from('not a zip')), { ...limits, unreadable: 'nope' }),
    ).rejects.toThrow(/^nope$/);
    await expect(assertZipWithinLimits(await at('empty.zip', zip([])), limits)).resolves.toBeUndefined();
  });
});
