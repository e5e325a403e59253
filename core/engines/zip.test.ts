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

const SHEET = 'xl/worksheets/sheet1.xml';

/** `data` (a ZIP) with the first compressed bytes of member `name` overwritten: a deflate stream that cannot start. */
function withGarbledMember(data: Buffer, name: string): Buffer {
  const copy = Buffer.from(data);
  const nameBytes = Buffer.from(name);
  // The local header (signature PK\3\4, 30 bytes, then the name and an extra field) precedes the data.
  for (let at = copy.indexOf(nameBytes); at >= 0; at = copy.indexOf(nameBytes, at + 1)) {
    const header = at - 30;
    if (header < 0 || copy.readUInt32LE(header) !== 0x04034b50) continue;
    const start = at + copy.readUInt16LE(header + 26) + copy.readUInt16LE(header + 28);
    copy.fill(0xff, start, start + 16);
    return copy;
  }
  throw new Error(`no local header for ${name}`);
}

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
    // Its compressed bytes are garbage: only a verdict from the declared size alone can name the size.
    const bomb = await at('bomb.xlsx', withGarbledMember(xlsxRowBomb(1_000_000_000), SHEET));
    const error = await assertZipWithinLimits(bomb, limits).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PluginError);
    expect((error as Error).message).toBe(
      'The spreadsheet is too large once decompressed: over 10 MB (it may be a decompression bomb)',
    );
    // The same garbage under an honest declared size is inflated, and found damaged.
    const small = await at('garbled.xlsx', withGarbledMember(xlsxRowBomb(1_000_000_000, 1000), SHEET));
    await expect(assertZipWithinLimits(small, limits)).rejects.toThrow(/could not be read: it is damaged/);
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
