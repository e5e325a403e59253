import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import * as fsPromises from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { blobStoreContractSuite } from './testing/suite.js';
import { LocalBlobStore } from './local.js';

vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs/promises')>();
  return { ...actual, mkdir: vi.fn(actual.mkdir) };
});

blobStoreContractSuite('LocalBlobStore', async () => {
  const root = await mkdtemp(path.join(os.tmpdir(), 'transmute-blobs-'));
  return { blobs: new LocalBlobStore(root), destroy: () => rm(root, { recursive: true, force: true }) };
});

// Every upload and every output is a blob: a folder is made when it is missing, not checked again for each.
describe('LocalBlobStore folders', () => {
  let root: string;
  let blobs: LocalBlobStore;
  const mkdir = vi.mocked(fsPromises.mkdir);

  beforeEach(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'transmute-blobs-'));
    blobs = new LocalBlobStore(root);
    mkdir.mockClear();
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  it('makes a blob folder once, at its first blob, and again only once it has been removed', async () => {
    await blobs.write('uploads/a', Readable.from([Buffer.from('first')]));
    expect(mkdir).toHaveBeenCalledTimes(1);
    await blobs.write('uploads/b', Readable.from([Buffer.from('second')]));
    const output = path.join(root, 'made-by-a-run');
    await writeFile(output, 'output');
    await blobs.putFile('uploads/c', output);
    expect(mkdir).toHaveBeenCalledTimes(1);

    await rm(path.join(root, 'uploads'), { recursive: true });
    await blobs.write('uploads/d', Readable.from([Buffer.from('after the folder went')]));
    expect(mkdir).toHaveBeenCalledTimes(2);
    expect(await readFile(path.join(root, 'uploads', 'd'), 'utf8')).toBe('after the folder went');

    await writeFile(output, 'second output');
    await blobs.putFile('outputs/e', output);
    expect(mkdir).toHaveBeenCalledTimes(3);
    expect(await readFile(path.join(root, 'outputs', 'e'), 'utf8')).toBe('second output');
  });
});
