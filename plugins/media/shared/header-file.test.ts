/**
 * The header readers' file plumbing: exact positioned reads that decline where the file ends first, and a file that
 * is closed however the reader ends. Any error, a decline or not, answers undefined: ffprobe then has the file.
 */
import { mkdtempSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decline, HeaderDeclined, type HeaderFile, headerStream, readHeaderFile } from './header-file.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'header-file-'));
const tenBytes = path.join(dir, 'ten-bytes.bin');

beforeAll(() => writeFile(tenBytes, Buffer.from('0123456789')));
afterAll(() => rm(dir, { recursive: true, force: true }));

/** Fails unless `file`'s handle is closed: reading a closed handle is refused by Node (EBADF). */
async function expectClosed(file: HeaderFile | undefined): Promise<void> {
  expect(file).toBeDefined();
  await expect(file!.readExactly(0, 1)).rejects.toMatchObject({ code: 'EBADF' });
}

describe('readExactly', () => {
  it('reads exactly the bytes asked for, anywhere in the file, and knows its size', async () => {
    const read = await readHeaderFile(tenBytes, async (file) => ({
      size: file.size,
      start: (await file.readExactly(0, 4)).toString(),
      middle: (await file.readExactly(3, 5)).toString(),
      end: (await file.readExactly(9, 1)).toString(),
    }));
    expect(read).toEqual({ size: 10, start: '0123', middle: '34567', end: '9' });
  });

  it('declines a read that starts past the end of the file', async () => {
    let declined: unknown;
    const read = await readHeaderFile(tenBytes, async (file) => {
      declined = await file.readExactly(10, 1).catch((error: unknown) => error);
      return 'went on';
    });
    expect(read).toBe('went on');
    expect(declined).toBeInstanceOf(HeaderDeclined);
    expect(await readHeaderFile(tenBytes, (file) => file.readExactly(64, 8))).toBeUndefined();
  });

  it('declines a short read: one that runs over the end of the file', async () => {
    let declined: unknown;
    await readHeaderFile(tenBytes, async (file) => {
      declined = await file.readExactly(6, 8).catch((error: unknown) => error);
    });
    expect(declined).toBeInstanceOf(HeaderDeclined);
    expect((declined as Error).message).toBe('the file ended early');
    expect(await readHeaderFile(tenBytes, (file) => file.readExactly(0, 11))).toBeUndefined();
  });
});

describe('readHeaderFile', () => {
  it('answers what the reader read, and closes the file', async () => {
    let opened: HeaderFile | undefined;
    const read = await readHeaderFile(tenBytes, async (file) => {
      opened = file;
      return (await file.readExactly(0, 2)).toString();
    });
    expect(read).toBe('01');
    await expectClosed(opened);
  });

  it('answers undefined when the reader declines, and closes the file', async () => {
    let opened: HeaderFile | undefined;
    const read = await readHeaderFile(tenBytes, async (file) => {
      opened = file;
      return decline('something unusual');
    });
    expect(read).toBeUndefined();
    await expectClosed(opened);
  });

  it('swallows an unexpected error into undefined too (ffprobe has the last word), and closes the file', async () => {
    let opened: HeaderFile | undefined;
    const read = await readHeaderFile(tenBytes, async (file) => {
      opened = file;
      // A reader's own slip, not a decline: a Buffer read out of its range throws RangeError.
      return Buffer.alloc(2).readUInt32BE(0);
    });
    expect(read).toBeUndefined();
    await expectClosed(opened);
  });

  it('answers undefined for a file that cannot be opened (the reader is not called) or read', async () => {
    let called = false;
    const read = await readHeaderFile(path.join(dir, 'missing.bin'), async () => {
      called = true;
    });
    expect(read).toBeUndefined();
    expect(called).toBe(false);
    expect(await readHeaderFile(dir, async (file) => file.readExactly(0, 1))).toBeUndefined();
  });
});

describe('headerStream', () => {
  it('starts a stream with only its index and type known', () => {
    const { index, type, attachedPicture, tags, ...facts } = headerStream(2, 'audio');
    expect({ index, type, attachedPicture, tags }).toEqual({
      index: 2,
      type: 'audio',
      attachedPicture: false,
      tags: {},
    });
    expect(Object.keys(facts).sort()).toEqual([
      'bitsPerRawSample',
      'channels',
      'codec',
      'durationSec',
      'frameCount',
      'height',
      'sampleRate',
      'width',
    ]);
    expect(Object.values(facts).filter((value) => value !== undefined)).toEqual([]);
  });
});
