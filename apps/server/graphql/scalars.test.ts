/** The one schema -> GraphQL scalar mapping (scalars.ts). */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { dateTimeString } from '../../../schema/index.js';
import { scalarOf, zodJsonSchema } from './scalars.js';

const of = (schema: z.ZodType) => scalarOf(zodJsonSchema(schema));

describe('scalarOf', () => {
  it('maps integers, whole-valued number enums, numbers, booleans, strings and date-times', () => {
    expect(of(z.number().int())).toEqual({ type: 'Int', list: false });
    expect(of(z.number().meta({ enum: [90, 180, 270] }))).toEqual({ type: 'Int', list: false });
    expect(of(z.number())).toEqual({ type: 'Float', list: false });
    expect(of(z.boolean())).toEqual({ type: 'Boolean', list: false });
    expect(of(z.string())).toEqual({ type: 'String', list: false });
    expect(of(dateTimeString())).toEqual({ type: 'DateTime', list: false });
  });

  it('reads a nullable schema by its other variant, and a list by its items', () => {
    expect(of(z.string().nullable())).toEqual({ type: 'String', list: false });
    expect(of(z.array(z.number().int()))).toEqual({ type: 'Int', list: true });
  });

  it('leaves objects and enums to a type the caller names', () => {
    expect(of(z.object({ a: z.string() }))).toEqual({ list: false });
    expect(of(z.enum(['a', 'b']))).toEqual({ list: false });
  });
});
