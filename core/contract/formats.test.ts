/** Plugin-declared formats: validated, registered by the registry, known to every service, collisions refused. */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { creditCost, formatFromFilename, isFormatId } from '../../schema/index.js';
import { LocalBlobStore } from '../blobs/local.js';
import { Registry } from '../registry/index.js';
import { outputFilename, UploadService } from '../services/uploads.js';
import { defineFormat, definePlugin, type FormatDeclaration, type Plugin } from './index.js';
import { manifestProblems } from './validate.js';

const ndjson = defineFormat({
  id: 'ndjson',
  category: 'data',
  mime: 'application/x-ndjson',
  text: true,
  sniff: (head) => /^\s*\{/.test(head.toString('utf8')) && !head.includes(0),
});

const plugin = (id: string, formats: readonly FormatDeclaration[], overrides: Partial<Plugin> = {}): Plugin =>
  definePlugin({
    id,
    kind: 'convert',
    title: 'Test',
    inputs: ['json'],
    outputs: [ndjson.id],
    formats,
    options: z.object({}),
    plan: 'free',
    licenses: [],
    engines: [],
    limits: { timeoutMs: 1000, concurrency: 1 },
    run: async () => ({ row: {} }),
    ...overrides,
  } as never);

const dirs: string[] = [];
afterAll(async () => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

describe('plugin-declared formats', () => {
  it('validates a declaration with the manifest', () => {
    expect(manifestProblems(plugin('a', [ndjson]))).toEqual([]);
    const bad = {
      id: 'ND-JSON',
      category: 'stuff',
      mime: 'json',
      creditBase: 2,
      sniff: 'yes',
    } as unknown as FormatDeclaration;
    expect(manifestProblems(plugin('a', [bad], { outputs: ['json'] }))).toEqual([
      "plugin 'a': format id 'ND-JSON' must be 1-16 lower-case letters or digits",
      "plugin 'a': format 'ND-JSON': unknown category 'stuff'",
      "plugin 'a': format 'ND-JSON': mime must be a media type such as text/plain",
      "plugin 'a': format 'ND-JSON': creditBase must be 1, 3 or 10",
      "plugin 'a': format 'ND-JSON': sniff(head) must be a function",
    ]);
  });

  it('says how to declare a format a manifest names but nobody declares', () => {
    expect(manifestProblems(plugin('a', [], { outputs: ['tsv' as never] }))).toEqual([
      "plugin 'a': unknown format 'tsv': declare it in the manifest's `formats` (see examples/plugin/README.md)",
    ]);
  });

  it('refuses built-in ids and extensions, and a format two plugins declare', () => {
    const png = { ...ndjson, id: 'png' };
    expect(() => new Registry([plugin('a', [png], { outputs: ['png'] })])).toThrow(
      /format 'png' is built in: use it without declaring it/,
    );
    expect(
      () =>
        new Registry([plugin('a', [{ ...ndjson, id: 'jsonl', extension: 'tif' }], { outputs: ['jsonl' as never] })]),
    ).toThrow(/format 'tif' is built in/);
    expect(() => new Registry([plugin('a', [ndjson]), plugin('b', [ndjson], { inputs: ['csv'] })])).toThrow(
      /plugin 'b': format 'ndjson' is already declared by plugin 'a'/,
    );
  });

  it('registered at start-up, is known to file names, credits, output names and upload sniffing', async () => {
    new Registry([plugin('a', [ndjson]), plugin('b', [], { inputs: [ndjson.id], outputs: ['csv'] })]);
    expect(isFormatId('ndjson')).toBe(true);
    expect(formatFromFilename('events.NDJSON')).toBe('ndjson');
    expect(creditCost({ format: ndjson.id, bytes: 1000 })).toBe(3);
    expect(outputFilename('events.json', ndjson.id)).toBe('events.ndjson');

    const dir = await mkdtemp(path.join(os.tmpdir(), 'formats-test-'));
    dirs.push(dir);
    const uploads = new UploadService(new LocalBlobStore(dir));
    const staged = (filename: string, text: string) => ({
      blobKey: 'k',
      filename,
      bytes: text.length,
      head: Buffer.from(text),
    });
    await expect(uploads.identify(staged('a.ndjson', '{"a":1}\n{"a":2}\n'))).resolves.toBe('ndjson');
    await expect(uploads.identify(staged('a.ndjson', 'a,b\n1,2\n'))).rejects.toThrow(
      /named \.ndjson but contains data the ndjson sniffer refuses/,
    );
  });
});
