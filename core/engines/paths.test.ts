/**
 * Engine path overrides: handed over once (configureEnginePaths), honoured by runProcess,
 * commandExists and so by the registry's engine check (what /readyz and the formats report).
 */
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { definePlugin } from '../contract/index.js';
import { Registry } from '../registry/index.js';
import { ENGINE_PATH_VARIABLES, STANDARD_ENGINES } from './catalog.js';
import { configureEnginePaths, enginePaths, pathVariable, resolveCommand } from './paths.js';
import { PDFTOTEXT } from './poppler.js';
import { EngineError, commandExists, runProcess } from './process.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'engine-paths-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));
afterEach(() => configureEnginePaths({}));

/** A plugin that needs pdftotext, as every PDF reader declares it. */
const needsPdftotext = definePlugin({
  id: 'needs-pdftotext',
  kind: 'convert',
  title: 'Needs pdftotext',
  inputs: ['pdf'],
  outputs: ['txt'],
  options: z.object({}),
  plan: 'free',
  licenses: [],
  engines: [PDFTOTEXT],
  limits: { timeoutMs: 1000, concurrency: 1 },
  run: async () => ({ row: {} }),
});

async function checked(): Promise<Registry> {
  const registry = new Registry([needsPdftotext]);
  await registry.checkEngines();
  return registry;
}

describe('engine path overrides', () => {
  it('name one variable per command', () => {
    expect(pathVariable('pdftotext')).toBe('PDFTOTEXT_PATH');
    expect(pathVariable('gs')).toBe('GS_PATH');
    expect(ENGINE_PATH_VARIABLES).toMatchObject({
      soffice: 'SOFFICE_PATH',
      ffprobe: 'FFPROBE_PATH',
      tesseract: 'TESSERACT_PATH',
      qpdf: 'QPDF_PATH',
    });
    expect(Object.keys(ENGINE_PATH_VARIABLES).sort()).toEqual(STANDARD_ENGINES.map((engine) => engine.command).sort());
  });

  it('are plain data, replaced as a whole; empty entries mean PATH', () => {
    configureEnginePaths({ pdftotext: '/opt/poppler/pdftotext', gs: '' });
    expect(enginePaths()).toEqual({ pdftotext: '/opt/poppler/pdftotext' });
    expect(resolveCommand('pdftotext')).toBe('/opt/poppler/pdftotext');
    expect(resolveCommand('gs')).toBe('gs');
    configureEnginePaths({});
    expect(resolveCommand('pdftotext')).toBe('pdftotext');
  });

  it('pointing at a missing file: the command is missing, and the plugin unavailable', async () => {
    expect((await checked()).missingEngines(needsPdftotext)).toEqual([]);
    configureEnginePaths({ pdftotext: path.join(dir, 'no-such-pdftotext') });
    expect(await commandExists('pdftotext')).toBe(false);
    const registry = await checked();
    expect(registry.missingEngines(needsPdftotext)).toEqual(['pdftotext (Debian poppler-utils)']);
    expect(registry.resolve({ from: 'pdf', target: 'txt' })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/not available on this server: missing pdftotext/),
    });
    const error = await runProcess('pdftotext', ['-v'], { timeoutMs: 5_000 }).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(EngineError);
    expect(error).toMatchObject({ reason: 'missing', command: 'pdftotext' });
  });

  it('pointing at a directory or a file that is not executable: missing', async () => {
    const notExecutable = path.join(dir, 'pdftotext.txt');
    await writeFile(notExecutable, 'not a program');
    for (const override of [dir, notExecutable]) {
      configureEnginePaths({ pdftotext: override });
      expect(await commandExists('pdftotext')).toBe(false);
    }
  });

  it('pointing at the real binary under another name: runs it, and the plugin is available', async () => {
    const link = path.join(dir, 'my-pdftotext');
    await symlink('/usr/bin/pdftotext', link);
    configureEnginePaths({ pdftotext: link });
    expect(await commandExists('pdftotext')).toBe(true);
    expect((await checked()).missingEngines(needsPdftotext)).toEqual([]);
    const { stderr } = await runProcess('pdftotext', ['-v'], { timeoutMs: 5_000 });
    expect(stderr).toMatch(/pdftotext version/);
  });
});
