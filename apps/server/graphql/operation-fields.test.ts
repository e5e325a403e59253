/** The GraphQL field of an operation, declared from its section and its zod input (operation-fields.ts). */
import { graphql, printSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Principal, Services } from '../../../core/services/index.js';
import { type AnyOperation, defineOperation } from '../operations/operation.js';
import { createBuilder } from './builder.js';
import { addOperationFields } from './operation-fields.js';
import { addIdleRoots } from './testing/roots.js';

const lookupOperation = defineOperation({
  name: 'getThing',
  method: 'GET',
  path: '/things/{id}',
  tag: 'Things',
  summary: 'A thing',
  files: 'none',
  params: z.object({ id: z.string().min(1).meta({ description: 'The thing.' }) }),
  query: z.object({
    limit: z.coerce.number().int().min(1).default(5).meta({ description: 'How many parts.' }),
    label: z.string().nullable().optional().meta({ description: 'A new label; null clears it.' }),
  }),
  output: { status: 200, description: 'The thing.', schema: z.object({ id: z.string(), parts: z.number() }) },
  errors: ['404'],
  graphql: {
    root: 'query',
    field: 'thing',
    type: 'Thing',
    description: 'A thing of the caller.',
    // Types, descriptions and nullability from the zod input, but where the section says otherwise.
    args: { thingId: { type: 'ID', field: 'id' }, limit: {}, label: { clearable: true } },
    decode: true,
    answer: ({ id, parts }, input) => ({ id, parts, label: input.label === null ? 'cleared' : 'kept' }),
  },
  run: async (_services, _principal, { id, limit }) => ({ id, parts: limit }),
});

/** Two operations behind one field, picked by its `color` argument (as the extraction polls by `tool`). */
const paintOperations = ['red', 'blue'].map((color) =>
  defineOperation({
    name: `get${color}Paint`,
    method: 'GET',
    path: `/paint/${color}/{id}`,
    tag: 'Things',
    summary: 'A paint',
    files: 'none',
    params: z.object({ id: z.string().meta({ description: 'The paint.' }) }),
    output: { status: 200, description: 'The paint.', schema: z.object({ id: z.string() }) },
    errors: ['404'],
    graphql: {
      root: 'query',
      field: 'paint',
      type: 'Thing',
      description: 'A paint of any color.',
      args: { color: { type: 'String', required: true, description: 'Its color.' }, id: { type: 'ID' } },
      dispatch: { arg: 'color', value: color, noun: 'color' },
    },
    run: async (_services, _principal, { id }) => ({ id, parts: 1, label: color }),
  }),
);

function schemaWith(operations: AnyOperation[] = [lookupOperation, ...paintOperations]) {
  const builder = createBuilder();
  builder.objectRef<{ id: string; parts: number; label: string }>('Thing').implement({
    description: 'A thing.',
    fields: (t) => ({
      id: t.exposeString('id', { description: 'Its id.' }),
      parts: t.exposeInt('parts', { description: 'Its parts.' }),
      label: t.exposeString('label', { description: 'What became of its label.' }),
    }),
  });
  addIdleRoots(builder);
  addOperationFields(builder, operations, { names: new Map(), convertFields: new Map(), fields: new Map() });
  return builder.toSchema();
}

const context = { services: {} as Services, principal: {} as Principal };

describe('GraphQL fields from the operation table', () => {
  it('declares the arguments from the zod input: type, description, required, renamed where the section says', () => {
    const sdl = printSchema(schemaWith());
    expect(sdl).toContain('"""A thing of the caller."""\n  thing(');
    expect(sdl).toMatch(/"""The thing\."""\s+thingId: ID!/);
    expect(sdl).toMatch(/"""How many parts\."""\s+limit: Int\n/);
    expect(sdl).toMatch(/"""A new label; null clears it\."""\s+label: String\n/);
  });

  it("resolves with the operation's run, its input decoded by the zod, and maps the answer", async () => {
    const schema = schemaWith();
    const ask = (source: string) => graphql({ schema, source, contextValue: context });
    expect(await ask('{ thing(thingId: "t1") { id parts label } }')).toEqual({
      data: { thing: { id: 't1', parts: 5, label: 'kept' } },
    });
    expect(await ask('{ thing(thingId: "t1", limit: 2, label: null) { parts label } }')).toEqual({
      data: { thing: { parts: 2, label: 'cleared' } },
    });
    const refused = await ask('{ thing(thingId: "t1", limit: 0) { id } }');
    expect(refused.errors?.[0]?.message).toMatch(/^Invalid limit: /);
  });

  it('serves one field from several operations, picked by their dispatch argument', async () => {
    const schema = schemaWith();
    const ask = (source: string) => graphql({ schema, source, contextValue: context });
    expect(await ask('{ paint(color: "blue", id: "p1") { id label } }')).toEqual({
      data: { paint: { id: 'p1', label: 'blue' } },
    });
    const refused = await ask('{ paint(color: "green", id: "p1") { id } }');
    expect(refused.errors?.[0]?.message).toBe("Unknown color 'green': use one of red, blue");
    const undispatched = paintOperations.map((operation) => {
      const { dispatch: _dispatch, ...graphql } = operation.graphql!;
      return { ...operation, graphql };
    });
    expect(() => schemaWith(undispatched)).toThrow(/share a field without a dispatch/);
  });
});
