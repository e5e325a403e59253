import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { strToU8, zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FormatId } from '../../../schema/index.js';
import { claimingPages } from '../testing/pages.js';
import { savedPageCount } from './saved-pages.js';

describe('savedPageCount', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'office-pages-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const bare = zipSync({ '[Content_Types].xml': strToU8('<Types/>'), 'word/document.xml': strToU8('<w:document/>') });
  const count = async (name: string, format: FormatId, data: Uint8Array) => {
    const file = path.join(dir, name);
    await writeFile(file, data);
    return savedPageCount({ path: file, format, filename: name, bytes: data.length }, AbortSignal.timeout(10_000));
  };

  it('reads <Pages> of a DOCX and <Slides> of a PPTX', async () => {
    expect(await count('long.docx', 'docx', claimingPages(bare, 2345))).toBe(2345);
    expect(await count('deck.pptx', 'pptx', claimingPages(bare, 42, 'Slides'))).toBe(42);
  });

  it('cannot tell without the count, for other formats, or from a file that is not a ZIP', async () => {
    expect(await count('bare.docx', 'docx', bare)).toBeUndefined();
    expect(await count('deck.pptx', 'pptx', claimingPages(bare, 42))).toBeUndefined();
    expect(await count('sheet.xlsx', 'xlsx', claimingPages(bare, 42))).toBeUndefined();
    expect(await count('broken.docx', 'docx', Buffer.from('PK\x03\x04 not a zip'))).toBeUndefined();
  });
});
