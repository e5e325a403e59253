/** GraphQL object types read from the wire zod (zod-objects.ts). */
import { graphql, printSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { dateTimeString } from '../../../schema/index.js';
import { createBuilder } from './builder.js';
import { addZodEnum, addZodInterface, addZodObject } from './zod-objects.js';
import { addIdleRoots } from './testing/roots.js';

const partSchema = z.object({ name: z.string().meta({ description: 'Its name.' }) });
const thingSchema = z.object({
  count: z.number().int().meta({ description: 'How many.' }),
  ratio: z.number().optional().meta({ description: 'A share; null when unknown.' }),
  at: dateTimeString().meta({ description: 'When.' }),
  ok: z.boolean().meta({ description: 'Whether.' }),
  parts: z.array(partSchema).meta({ description: 'Its parts.' }),
  hidden: z.string().optional(),
});

function schemaWith(schema: z.ZodObject = thingSchema) {
  const builder = createBuilder();
  addZodObject(builder, 'Part', partSchema, { description: 'A part.' });
  const ThingRef = addZodObject(builder, 'Thing', schema as typeof thingSchema, {
    description: 'A thing.',
    types: { parts: 'Part' },
    omit: ['hidden'],
    extra: (t) => ({ extra: t.string({ description: 'Computed.', resolve: () => 'x' }) }),
  });
  const thing = { count: 2, at: '2026-01-01T00:00:00.000Z', ok: true, parts: [{ name: 'a' }] };
  builder.queryField('thing', (t) => t.field({ type: ThingRef, description: 'The thing.', resolve: () => thing }));
  addIdleRoots(builder);
  return builder.toSchema();
}

describe('GraphQL object types from zod', () => {
  it('types each field from its zod, nullable where optional, described by its meta, omitted when asked', () => {
    const sdl = printSchema(schemaWith());
    expect(sdl).toMatch(/"""How many\."""\s+count: Int!/);
    expect(sdl).toMatch(/"""A share; null when unknown\."""\s+ratio: Float\n/);
    expect(sdl).toMatch(/"""When\."""\s+at: DateTime!/);
    expect(sdl).toMatch(/"""Whether\."""\s+ok: Boolean!/);
    expect(sdl).toMatch(/"""Its parts\."""\s+parts: \[Part!\]!/);
    expect(sdl).toMatch(/"""Computed\."""\s+extra: String!/);
    expect(sdl).not.toContain('hidden');
  });

  it('resolves the wire object as it is, a missing optional field as null', async () => {
    const answer = await graphql({ schema: schemaWith(), source: '{ thing { count ratio ok parts { name } extra } }' });
    expect(answer).toEqual({
      data: { thing: { count: 2, ratio: null, ok: true, parts: [{ name: 'a' }], extra: 'x' } },
    });
  });

  it('refuses a field without a description or a nested object without a type name', () => {
    expect(() => schemaWith(z.object({ count: z.number() }))).toThrow(/Thing\.count needs a description/);
    const nested = z.object({ inner: z.object({}).meta({ description: 'Inner.' }) });
    expect(() => schemaWith(nested)).toThrow(/Thing\.inner needs a named type/);
  });
});

describe('GraphQL types from zod: rows read from their parent, renamed fields, enums and interfaces', () => {
  const stateSchema = z.enum(['open', 'closed']);
  const rowSchema = z.object({
    state: stateSchema.meta({ description: 'Open or not.' }),
    years_exp: z.number().optional().meta({ description: 'Years.' }),
    steps: z
      .array(z.object({ n: z.number() }))
      .optional()
      .meta({ description: 'As one value.' }),
  });
  type Parent = { kind: string; row: Record<string, unknown> | null };

  function rowSchemaWith() {
    const builder = createBuilder();
    addZodEnum(builder, 'State', stateSchema, { description: 'A state.', values: { open: 'Open.', closed: 'Shut.' } });
    const RowRef = addZodInterface<Parent>(builder, 'Row', z.object({ state: rowSchema.shape.state }), {
      description: 'A row.',
      types: { state: 'State' },
      from: ({ row }) => row,
      resolveType: () => 'KindRow',
    });
    addZodObject<z.ZodRawShape, Parent>(builder, 'KindRow', rowSchema.omit({ state: true }), {
      description: 'A typed row.',
      interfaces: [RowRef],
      types: { steps: 'JSON' },
      from: ({ row }) => row,
    });
    const rows: Parent[] = [
      { kind: 'a', row: { state: 'open', years_exp: 3, steps: [{ n: 1 }] } },
      { kind: 'a', row: null },
    ];
    builder.queryField('rows', (t) => t.field({ type: [RowRef], description: 'Rows.', resolve: () => rows }));
    addIdleRoots(builder);
    return builder.toSchema();
  }

  it('camelCases snake_case fields (naming the REST field), takes a JSON field whole, values from the zod enum', () => {
    const sdl = printSchema(rowSchemaWith());
    expect(sdl).toMatch(/"""Years \(REST: years_exp\)\."""\s+yearsExp: Float\n/);
    expect(sdl).toMatch(/"""As one value\."""\s+steps: JSON\n/);
    expect(sdl).toMatch(/"""Open\."""\s+open\n/);
    expect(sdl).toMatch(/"""Shut\."""\s+closed\n/);
    expect(sdl).toMatch(/type KindRow implements Row/);
  });

  it('reads the fields from inside the parent, all null when it holds none', async () => {
    const answer = await graphql({
      schema: rowSchemaWith(),
      source: '{ rows { ... on KindRow { yearsExp steps } } }',
    });
    expect(answer).toEqual({
      data: {
        rows: [
          { yearsExp: 3, steps: [{ n: 1 }] },
          { yearsExp: null, steps: null },
        ],
      },
    });
  });
});
