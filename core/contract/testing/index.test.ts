/**
 * The conformance kit itself: deliberately bad plugins fail each of its checks (mid-run abort,
 * the sniffed output format, wire-string decoding, collisions with the standard plugins), and
 * the standard plugins pass the checks that need no engine.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { standardPlugins } from '../../../plugins/index.js';
import { definePlugin, type Plugin, type PluginInput, type RunContext } from '../index.js';
import {
  abortProblem,
  collisionProblems,
  outputFormatProblem,
  pluginConformanceSuite,
  rowProblem,
  wireProblems,
  type ConformanceSample,
} from './index.js';

let dir: string;
let sample: ConformanceSample;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'kit-test-'));
  await writeFile(path.join(dir, 'in.txt'), 'Hello, kit.\n');
  sample = { name: 'txt', files: [{ path: path.join(dir, 'in.txt'), format: 'txt' }] };
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** A txt -> md converter whose run is `body`; it writes `out.md` unless the body returns another result. */
const converter = (id: string, body: (ctx: RunContext) => Promise<void>, overrides: Partial<Plugin> = {}): Plugin =>
  definePlugin({
    id,
    kind: 'convert',
    title: id,
    inputs: ['txt'],
    outputs: ['md'],
    options: z.object({}),
    plan: 'free',
    licenses: [],
    engines: [],
    limits: { timeoutMs: 10_000, concurrency: 1 },
    async run(_inputs: readonly PluginInput[], _options: unknown, ctx: RunContext) {
      await body(ctx);
      const out = path.join(ctx.workDir, 'out.md');
      await writeFile(out, '# Hello\n');
      return { path: out, format: 'md' };
    },
    ...overrides,
  } as never);

describe('mid-run abort', () => {
  it('fails a plugin that ignores abort and keeps running', async () => {
    const stubborn = converter('stubborn', () => sleep(1_500));
    expect(await abortProblem(stubborn, sample, { afterMs: 20, graceMs: 300 })).toMatch(
      /still running 300 ms after its signal was aborted/,
    );
  });

  it('fails a plugin that completes after the abort instead of rejecting', async () => {
    const careless = converter('careless', async (ctx) => {
      ctx.progress(10);
      await sleep(10);
    });
    expect(await abortProblem(careless, sample)).toMatch(/completed after its signal was aborted/);
  });

  it('passes a plugin that rejects once aborted', async () => {
    const polite = converter('polite', async (ctx) => {
      ctx.progress(10);
      await sleep(5_000, undefined, { signal: ctx.signal });
    });
    expect(await abortProblem(polite, sample)).toBeUndefined();
  });
});

describe('sniffed output format', () => {
  it('fails a plugin whose bytes are not the format it declares', async () => {
    const liar = converter('liar', async () => {}, {
      outputs: ['png'],
      async run(_inputs: readonly PluginInput[], _options: unknown, ctx: RunContext) {
        const out = path.join(ctx.workDir, 'out.png');
        await writeFile(out, 'not a picture');
        return { path: out, format: 'png' };
      },
    });
    const { runPlugin } = await import('./index.js');
    const run = await runPlugin(liar, sample.files);
    expect(await outputFormatProblem(run.result as never)).toBe('output declared as png contains unrecognised data');
    await rm(run.workDir, { recursive: true, force: true });
  });

  it('judges text formats as uploads are judged', async () => {
    const file = path.join(dir, 'fake.json');
    await writeFile(file, 'plain words');
    expect(await outputFormatProblem({ path: file, format: 'json' })).toBe(
      'output declared as json contains text that is not JSON',
    );
    await writeFile(file, '{"ok":true}');
    expect(await outputFormatProblem({ path: file, format: 'json' })).toBeUndefined();
  });
});

describe('wire-string decoding', () => {
  it('fails an option REST cannot send as a string', () => {
    const undecodable = converter('undecodable', async () => {}, {
      options: z.object({ size: z.union([z.number(), z.literal('auto')]).default('auto') }),
    });
    expect(wireProblems(undecodable, [{ ...sample, options: { size: 'auto' } }], [{ size: '12' }])).toEqual([
      `sample 'txt': options sent as strings {"size":"auto"} are refused: size must be a JSON string`,
      `option 'size': its default "auto" cannot be sent as a string (size must be a JSON string)`,
    ]);
  });

  it('fails a wire example that does not validate', () => {
    const bounded = converter('bounded', async () => {}, {
      options: z.object({ level: z.number().int().min(1).max(9).default(5) }),
    });
    expect(wireProblems(bounded, [{ ...sample, options: { level: 3 } }], [{ level: '7' }])).toEqual([]);
    expect(wireProblems(bounded, [], [{ level: '12' }])).toEqual([
      'wire options {"level":"12"} are refused: Invalid level: Too big: expected number to be <=9',
    ]);
  });
});

describe('the row an extract plugin declares', () => {
  const counter = (row?: z.ZodObject) =>
    ({ id: 'counter', kind: 'extract', extraction: { maxFiles: 1, ...(row ? { row } : {}) } }) as Plugin;
  const words = z.object({ words: z.number().int().optional() });

  it('fails a completed row that does not match it, passes one that does or a plugin that declares none', () => {
    expect(rowProblem(counter(words), { words: 'many' })).toMatch(/does not match extraction.row.*words/s);
    expect(rowProblem(counter(words), { words: 3 })).toBeUndefined();
    expect(rowProblem(counter(), { words: 'many' })).toBeUndefined();
  });
});

describe('collisions with the standard plugins', () => {
  it('reports a taken id, conversion pair and op', async () => {
    const sameId = converter('image-convert', async () => {});
    const samePair = converter('my-webp', async () => {}, { inputs: ['png'], outputs: ['webp'] });
    const sameOp = converter('my-compress', async () => {}, {
      kind: 'tool',
      op: 'compress',
      inputs: ['png'],
      outputs: undefined,
    });
    expect(await collisionProblems(sameId, standardPlugins)).toEqual([
      "plugin 'image-convert': id is already provided by 'image-convert'",
    ]);
    expect(await collisionProblems(samePair, standardPlugins)).toEqual([
      "plugin 'my-webp': conversion png -> webp is already provided by 'image-convert'",
    ]);
    expect(await collisionProblems(sameOp, standardPlugins)).toEqual([
      "plugin 'my-compress': op 'compress' on png is already provided by 'image-compress'",
    ]);
    expect(
      await collisionProblems(
        converter('fresh', async () => {}),
        standardPlugins,
      ),
    ).toEqual([]);
  });
});

describe('the standard plugins', () => {
  it.each(standardPlugins.map((p) => [p.id, p] as const))(
    '%s collides with no other and decodes its defaults from strings',
    async (_id, plugin) => {
      expect(await collisionProblems(plugin, standardPlugins)).toEqual([]);
      expect(wireProblems(plugin, [])).toEqual([]);
    },
  );
});

// The whole suite, as an author runs it, on a small plugin that does everything right.
pluginConformanceSuite(
  converter(
    'polite-md',
    async (ctx) => {
      ctx.progress(10);
      await sleep(200, undefined, { signal: ctx.signal });
    },
    { options: z.object({ heading: z.boolean().default(true), level: z.number().int().min(1).max(6).default(1) }) },
  ),
  [
    {
      name: 'defaults',
      files: [{ path: path.join(os.tmpdir(), 'kit-polite.txt'), format: 'txt' }],
      expectFormat: 'md',
    },
    {
      name: 'level 2',
      files: [{ path: path.join(os.tmpdir(), 'kit-polite.txt'), format: 'txt' }],
      options: { heading: false, level: 2 },
    },
  ],
  { against: standardPlugins, wireOptions: [{ heading: 'false', level: '3' }] },
);
beforeAll(() => writeFile(path.join(os.tmpdir(), 'kit-polite.txt'), 'Hello\n'));
afterAll(() => rm(path.join(os.tmpdir(), 'kit-polite.txt'), { force: true }));
