import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { zipSync } from 'fflate';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { UNO_PYTHON } from './libreoffice.js';
import { officeEncryption } from './office-crypto.js';
import { configureEnginePaths } from './paths.js';

const FIXTURES = fileURLToPath(new URL('../../test/fixtures/office/', import.meta.url));
const fixture = (name: string) => path.join(FIXTURES, name);
const ctx = { signal: new AbortController().signal, remainingMs: () => 30_000 };

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'office-crypto-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));
afterEach(() => configureEnginePaths({}));

/** Debian's python made unreachable: what is still decided was decided without starting it. */
const withoutPython = () => configureEnginePaths({ [UNO_PYTHON]: path.join(dir, 'no-python-here') });

describe('officeEncryption', () => {
  it('tells encrypted Office packages, encrypted ODF and plain files apart (real files)', async () => {
    expect(await officeEncryption(fixture('encrypted-solrcell.docx'), ctx)).toBe('office');
    expect(await officeEncryption(fixture('encrypted-tika.xlsx'), ctx)).toBe('office');
    expect(await officeEncryption(fixture('encrypted-octopus.odt'), ctx)).toBe('odf');
    for (const plain of ['comments.docx', 'sheet.xlsx', 'images.pptx'])
      expect(await officeEncryption(fixture(plain), ctx)).toBe('none');
  });

  it('decides a ZIP package (DOCX, ODT) and a plain file without starting python', async () => {
    withoutPython();
    expect(await officeEncryption(fixture('comments.docx'), ctx)).toBe('none');
    expect(await officeEncryption(fixture('encrypted-octopus.odt'), ctx)).toBe('odf');
    const text = path.join(dir, 'notes.txt');
    await writeFile(text, 'plain text, no container\n');
    expect(await officeEncryption(text, ctx)).toBe('none');
    // An OLE compound file still needs msoffcrypto, in python.
    await expect(officeEncryption(fixture('encrypted-solrcell.docx'), ctx)).rejects.toThrow();
  });

  it('reads the last manifest of a ZIP that holds two, as python does', async () => {
    const plain = new TextEncoder().encode('<manifest:manifest/>');
    const encrypted = new TextEncoder().encode('<manifest:manifest><manifest:encryption-data/></manifest:manifest>');
    // fflate keys entries by name: the duplicate is made by renaming a same-length placeholder in the bytes.
    const bytes = Buffer.from(zipSync({ 'META-INF/manifest.xml': plain, 'META-INF/manifest.xmX': encrypted }));
    for (let at = bytes.indexOf('manifest.xmX'); at >= 0; at = bytes.indexOf('manifest.xmX', at + 1))
      bytes.write('manifest.xml', at, 'latin1');
    const file = path.join(dir, 'two-manifests.odt');
    await writeFile(file, bytes);
    expect(await officeEncryption(file, ctx)).toBe('odf');
  });

  it('stops on an aborted run instead of reading on', async () => {
    const aborted = { signal: AbortSignal.abort(), remainingMs: () => 30_000 };
    await expect(officeEncryption(fixture('comments.docx'), aborted)).rejects.toThrow();
  });

  it('leaves a ZIP it cannot read to the python reader', async () => {
    const damaged = path.join(dir, 'damaged.docx');
    await writeFile(damaged, Buffer.from('PK\x03\x04 not really a zip'));
    expect(await officeEncryption(damaged, ctx)).toBe('none');
    withoutPython();
    await expect(officeEncryption(damaged, ctx)).rejects.toThrow();
  });
});
