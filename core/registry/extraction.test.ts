/** Extract plugins' endpoint declarations: the start-up checks, and the endpoint list every surface reads. */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { transcribeRowSchema } from '../../schema/index.js';
import { definePlugin, type Plugin } from '../contract/index.js';
import { extractionTools } from './extraction.js';
import { Registry } from './index.js';

const extractor = (overrides: Partial<Plugin> & { id: string; op: string }): Plugin =>
  definePlugin({
    kind: 'extract',
    title: 'Counter',
    inputs: ['txt'],
    options: z.object({ min: z.number().int().default(1) }),
    plan: 'pro',
    licenses: [],
    engines: [],
    limits: { timeoutMs: 1000, concurrency: 1 },
    extraction: { maxFiles: 5 },
    run: async () => ({ row: {} }),
    ...overrides,
  } as never);

describe('extraction endpoints', () => {
  const refused = (plugins: Plugin[], message: RegExp) => expect(() => new Registry(plugins)).toThrow(message);

  it('refuses an extract plugin without its endpoint, or a bad one', () => {
    refused(
      [extractor({ id: 'a', op: 'count', extraction: undefined })],
      /plugin 'a': an extract plugin declares its endpoint/,
    );
    refused(
      [extractor({ id: 'a', op: 'count', extraction: { maxFiles: 0 } })],
      /extraction.maxFiles must be an integer from 1 to 500/,
    );
    refused(
      [extractor({ id: 'a', op: 'count', extraction: { maxFiles: 2, freeTrial: 'yes' as never } })],
      /extraction.freeTrial must be true or false/,
    );
    refused(
      [extractor({ id: 'a', op: 'count', extraction: { maxFiles: 2, summary: { rows: { sum: 'count' } } } })],
      /summary name 'rows' is not allowed/,
    );
    refused(
      [extractor({ id: 'a', op: 'count', extraction: { maxFiles: 2, summary: { hits: {} as never } } })],
      /extraction.summary.hits must be \{ sum: '<row field>' \}/,
    );
    refused(
      [extractor({ id: 'a', op: 'count', extraction: { maxFiles: 2, row: { words: 'integer' } as never } })],
      /extraction.row must be a zod object/,
    );
    refused(
      [extractor({ id: 'a', op: undefined as never, kind: 'convert', outputs: ['md'] })],
      /only an extract plugin declares `extraction`/,
    );
  });

  it('refuses names the surfaces already use, and a spec tool with other limits than the spec', () => {
    refused([extractor({ id: 'a', op: 'batch' })], /op 'batch' is taken by another endpoint/);
    refused([extractor({ id: 'a', op: 'get' })], /op 'get' is taken/);
    refused([extractor({ id: 'a', op: 'count-results' })], /op 'count-results' ends in -results/);
    refused(
      [extractor({ id: 'a', op: 'pdf-to-markdown', extraction: { maxFiles: 30 } })],
      /the spec sets pdf-to-markdown to 25 files per request/,
    );
    refused(
      [extractor({ id: 'a', op: 'transcribe', extraction: { maxFiles: 10 } })],
      /the spec sets the lowest plan of transcribe to business/,
    );
    refused(
      [extractor({ id: 'a', op: 'parse-cv', extraction: { maxFiles: 50, freeTrial: false } })],
      /the spec gives a free try of parse-cv/,
    );
    expect(
      () => new Registry([extractor({ id: 'a', op: 'transcribe', plan: 'business', extraction: { maxFiles: 10 } })]),
    ).not.toThrow();
  });

  it("lists the spec's tools first (without a plugin: 'not installed' endpoints), then the others", () => {
    const tools = extractionTools(
      new Registry([
        extractor({
          id: 'counter',
          op: 'count',
          extraction: { maxFiles: 5, freeTrial: false, summary: { sumN: { sum: 'n' } } },
        }),
      ]),
    );
    expect(tools.map((t) => [t.tool, t.pluginId])).toEqual([
      ['parse-cv', null],
      ['transcribe', null],
      ['file-search', null],
      ['pdf-to-markdown', null],
      ['count', 'counter'],
    ]);
    expect(tools[1]).toMatchObject({
      title: 'Transcription',
      maxFiles: 10,
      plan: 'business',
      feature: 'transcribe',
      freeTrial: true,
      options: { properties: { lang: { type: 'string' } } },
    });
    expect(tools[4]).toEqual({
      tool: 'count',
      title: 'Counter',
      pluginId: 'counter',
      inputs: ['txt'],
      maxFiles: 5,
      plan: 'pro',
      feature: null,
      freeTrial: false,
      summary: { sumN: { sum: 'n' } },
      options: expect.objectContaining({
        properties: { min: expect.objectContaining({ type: 'integer', default: 1 }) },
      }),
      row: null,
    });
    // A spec tool with no plugin still has the spec's row (GraphQL types its rows all the same).
    expect(tools[1]!.row).toBe(transcribeRowSchema);
  });
});
