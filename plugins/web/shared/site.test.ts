import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PluginInput, RunContext } from '../../../core/contract/index.js';
import { zipOf } from '../testing/invoice.js';
import { DOCUMENT_ORIGIN, documentSource } from './site.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'web-site-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function zipInput(name: string, files: Record<string, Buffer | string>): Promise<PluginInput> {
  const data = await zipOf(files);
  await writeFile(path.join(dir, name), data);
  return { path: path.join(dir, name), format: 'zip', filename: name, bytes: data.length };
}

async function workDir(): Promise<RunContext> {
  const work = await mkdtemp(path.join(dir, 'work-'));
  return { workDir: work, signal: new AbortController().signal } as RunContext;
}

const get = (url: string) => ({ url, method: 'GET', headers: {}, isNavigation: false });

describe('documentSource', () => {
  it("serves a small ZIP's files from memory, refusing other hosts and methods", async () => {
    const ctx = await workDir();
    const blocked: string[] = [];
    const source = await documentSource(
      await zipInput('small.zip', { 'site/index.html': '<p>hi</p>', 'site/css/a.css': 'p{}' }),
      ctx,
      (url) => blocked.push(url),
    );
    expect(source.url).toBe(`${DOCUMENT_ORIGIN}/site/index.html`);
    expect(await readdir(ctx.workDir)).toEqual([]);
    expect((await source.fetch(get(`${DOCUMENT_ORIGIN}/site/css/a.css`)))?.body.toString()).toBe('p{}');
    expect(await source.fetch(get(`${DOCUMENT_ORIGIN}/site/../../etc/passwd`))).toMatchObject({ status: 404 });
    expect(await source.fetch(get('https://example.com/site/css/a.css'))).toBeUndefined();
    expect(await source.fetch({ ...get(`${DOCUMENT_ORIGIN}/site/css/a.css`), method: 'POST' })).toBeUndefined();
    expect(blocked).toHaveLength(2);
  });

  it(
    'unpacks a ZIP whose files inflate past the in-memory size to the work folder, with the same ' + 'answers',
    async () => {
      const ctx = await workDir();
      const big = Buffer.alloc(17_000_000, 'a');
      const source = await documentSource(
        await zipInput('big.zip', { 'index.html': '<p>big</p>', 'big.txt': big }),
        ctx,
      );
      expect(await readdir(ctx.workDir)).toEqual(['site']);
      expect((await source.fetch(get(`${DOCUMENT_ORIGIN}/big.txt`)))?.body.length).toBe(big.length);
      expect(await source.fetch(get(`${DOCUMENT_ORIGIN}/missing.css`))).toMatchObject({ status: 404 });
    },
  );
});
