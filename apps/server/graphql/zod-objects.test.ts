/** GraphQL object types read from the wire zod (zod-objects.ts). */
import { graphql, printSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { dateTimeString } from '../../../schema/index.js';
import { createBuilder } from './builder.js';
import { addZodObject } from './zod-objects.js';
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
