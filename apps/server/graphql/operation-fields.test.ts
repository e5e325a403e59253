/** The GraphQL field of an operation, declared from its section and its zod input (operation-fields.ts). */
import { graphql, printSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Principal, Services } from '../../../core/services/index.js';
import { defineOperation } from '../operations/operation.js';
import { createBuilder } from './builder.js';
import { addOperationFields } from './operation-fields.js';

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

function schemaWith() {
  const builder = createBuilder();
  builder.objectRef<{ id: string; parts: number; label: string }>('Thing').implement({
    description: 'A thing.',
    fields: (t) => ({
      id: t.exposeString('id', { description: 'Its id.' }),
      parts: t.exposeInt('parts', { description: 'Its parts.' }),
      label: t.exposeString('label', { description: 'What became of its label.' }),
    }),
  });
  // The builder declares all three roots; this test needs only the query.
  builder.mutationField('noop', (t) => t.boolean({ description: 'Nothing.', resolve: () => true }));
  builder.subscriptionField('tick', (t) =>
    t.boolean({
      description: 'Nothing.',
      subscribe: async function* () {
        yield true;
      },
      resolve: (value: boolean) => value,
    }),
  );
  addOperationFields(builder, [lookupOperation], { names: new Map(), convertFields: new Map(), fields: new Map() });
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
});
