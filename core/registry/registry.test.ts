/** The registry's start-up checks and its routing answers, on small in-test plugins. */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { definePlugin, type Plugin } from '../contract/index.js';
import { Registry } from './index.js';

const base = {
  kind: 'convert' as const,
  title: 'Test',
  inputs: ['txt'] as const,
  outputs: ['md'] as const,
  options: z.object({}),
  plan: 'free' as const,
  licenses: [],
  engines: [],
  limits: { timeoutMs: 1000, concurrency: 1 },
  run: async () => ({ row: {} }),
};
const plugin = (overrides: Partial<Plugin> & { id: string }): Plugin =>
  definePlugin({ ...base, ...overrides } as never);

describe('registry start-up checks', () => {
  const refused = (plugins: Plugin[], message: RegExp) => expect(() => new Registry(plugins)).toThrow(message);

  it('refuses duplicate ids, conversion pairs and ops', () => {
    refused([plugin({ id: 'a' }), plugin({ id: 'a', inputs: ['csv'] })], /plugin 'a': id is already provided by 'a'/);
    refused([plugin({ id: 'a' }), plugin({ id: 'b' })], /plugin 'b': conversion txt -> md is already provided by 'a'/);
    const tool = { kind: 'tool' as const, op: 'shout', outputs: undefined };
    refused(
      [plugin({ id: 'a', ...tool }), plugin({ id: 'b', ...tool })],
      /plugin 'b': op 'shout' on txt is already provided by 'a'/,
    );
  });

  it('allows one op on different inputs from different plugins', () => {
    const tool = { kind: 'tool' as const, op: 'shout', outputs: undefined };
    expect(
      () => new Registry([plugin({ id: 'a', ...tool }), plugin({ id: 'b', ...tool, inputs: ['csv'] })]),
    ).not.toThrow();
  });

  it('refuses unknown formats, plans and kinds', () => {
    refused([plugin({ id: 'a', inputs: ['txt', 'docz' as never] })], /plugin 'a': unknown format 'docz'/);
    refused([plugin({ id: 'a', plan: 'gold' as never })], /unknown plan 'gold'/);
    refused([plugin({ id: 'a', kind: 'magic' as never })], /kind must be convert, tool or extract/);
    refused([plugin({ id: 'Not Kebab' })], /id must be kebab-case/);
  });

  it('refuses option schemas the surfaces cannot describe', () => {
    refused([plugin({ id: 'a', options: z.string() as never })], /options must be a zod object/);
    refused([plugin({ id: 'a', options: z.object({ when: z.date() }) })], /options cannot be described as JSON Schema/);
    refused([plugin({ id: 'a', options: z.object({ to: z.string().optional() }) })], /option name 'to' is not allowed/);
  });

  it('refuses an engine listed twice, and reports every package of a missing one', async () => {
    const engine = { command: 'transmute-no-such-program', debian: 'pkg-a', license: 'MIT' };
    refused(
      [plugin({ id: 'a', engines: [engine, { ...engine, debian: 'pkg-b' }] })],
      /engine 'transmute-no-such-program' is listed twice/,
    );

    const registry = new Registry([
      plugin({
        id: 'a',
        engines: [{ command: 'transmute-no-such-program', debian: ['pkg-a', 'pkg-b'], license: 'MIT' }],
      }),
    ]);
    await registry.checkEngines();
    expect(registry.missingEngines(registry.plugin('a')!)).toEqual(['transmute-no-such-program (Debian pkg-a, pkg-b)']);
    expect(registry.resolve({ from: 'txt', target: 'md' })).toEqual({
      ok: false,
      error: 'Test is not available on this server: missing transmute-no-such-program (Debian pkg-a, pkg-b)',
    });
    expect(registry.conversionTable()).toEqual({});
  });
});

describe('registry routing', () => {
  const registry = new Registry([
    plugin({
      id: 'convert',
      inputs: ['txt', 'csv'],
      outputs: ['md', 'json'],
      supports: (from, to) => !(from === 'txt' && to === 'json'),
    }),
    plugin({ id: 'shout', kind: 'tool', op: 'shout', inputs: ['txt'], outputs: undefined }),
  ]);

  it('resolves pairs the plugin supports, and explains the rest', () => {
    expect(registry.resolve({ from: 'csv', target: 'json' })).toMatchObject({ ok: true, target: 'json' });
    expect(registry.resolve({ from: 'txt', target: 'json' })).toEqual({
      ok: false,
      error: 'Unsupported conversion: txt -> json',
    });
    expect(registry.conversionTable()).toEqual({ csv: ['json', 'md'], txt: ['md'] });
  });

  it('resolves ops in place, and explains the rest', () => {
    expect(registry.resolve({ from: 'txt', target: 'txt', op: 'shout' })).toMatchObject({ ok: true, target: 'txt' });
    expect(registry.resolve({ from: 'txt', target: 'md', op: 'shout' })).toEqual({
      ok: false,
      error: "With op 'shout', 'to' must equal the input format (txt)",
    });
    expect(registry.resolve({ from: 'csv', target: 'csv', op: 'shout' })).toEqual({
      ok: false,
      error: "Op 'shout' does not accept csv files",
    });
    expect(registry.resolve({ from: 'txt', target: 'txt', op: 'whisper' })).toEqual({
      ok: false,
      error: "Unknown op 'whisper'",
    });
  });
});

describe('registry routing: an op with several outputs, a format to itself', () => {
  it("lets `to` pick one of an op's outputs whatever the input, and names them otherwise", () => {
    const registry = new Registry([
      plugin({ id: 'snap', kind: 'tool', op: 'snap', inputs: ['pdf', 'mp4'], outputs: ['png', 'webp', 'jpg'] }),
    ]);
    expect(registry.resolve({ from: 'pdf', target: 'webp', op: 'snap' })).toMatchObject({ ok: true, target: 'webp' });
    // The target arrives parsed: `to=jpeg` is jpg by then (core/services/targets.ts).
    expect(registry.resolve({ from: 'mp4', target: 'jpg', op: 'snap' })).toMatchObject({ ok: true, target: 'jpg' });
    expect(registry.resolve({ from: 'pdf', target: 'pdf', op: 'snap' })).toEqual({
      ok: false,
      error: "With op 'snap', 'to' must be one of png, webp, jpg",
    });
  });

  it('takes a same-format op on a .jpeg upload asked for as jpg, the same format', () => {
    const registry = new Registry([
      plugin({ id: 'squeeze', kind: 'tool', op: 'squeeze', inputs: ['jpeg', 'jpg', 'png'], outputs: undefined }),
    ]);
    expect(registry.resolve({ from: 'jpeg', target: 'jpg', op: 'squeeze' })).toMatchObject({
      ok: true,
      target: 'jpeg',
    });
    expect(registry.resolve({ from: 'jpg', target: 'jpg', op: 'squeeze' })).toMatchObject({ ok: true, target: 'jpg' });
    expect(registry.resolve({ from: 'png', target: 'jpg', op: 'squeeze' })).toEqual({
      ok: false,
      error: "With op 'squeeze', 'to' must equal the input format (png)",
    });
  });

  it('routes a format to itself only to a plugin made for that alone', () => {
    const rewrite = plugin({ id: 'rewrite', inputs: ['pdf'], outputs: ['pdf'] });
    const broad = plugin({ id: 'broad', inputs: ['txt', 'md'], outputs: ['txt', 'md'] });
    const registry = new Registry([rewrite, broad]);
    expect(registry.resolve({ from: 'pdf', target: 'pdf' })).toMatchObject({ ok: true, plugin: rewrite });
    expect(registry.resolve({ from: 'txt', target: 'txt' })).toEqual({
      ok: false,
      error: 'Unsupported conversion: txt -> txt',
    });
    expect(registry.resolve({ from: 'txt', target: 'md' })).toMatchObject({ ok: true, plugin: broad });
  });
});
