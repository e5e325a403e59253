import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseOptions, wireKind } from './options.js';

const schema = z.object({
  quality: z.number().int().min(10).max(95).default(80),
  offset: z.int().optional(),
  ratio: z.number().optional(),
  flag: z.boolean().optional(),
  box: z.object({ width: z.number() }).optional(),
  name: z.string().optional(),
});

const fromWire = (raw: Record<string, string>) => parseOptions(schema, raw, { fromStrings: true, operation: 'test' });

describe('wire decoding of options', () => {
  it('tells integer fields from other numbers', () => {
    expect(wireKind(schema.shape.quality)).toBe('integer');
    expect(wireKind(schema.shape.offset)).toBe('integer');
    expect(wireKind(schema.shape.ratio)).toBe('number');
    expect(wireKind(schema.shape.flag)).toBe('boolean');
    expect(wireKind(schema.shape.box)).toBe('json');
    expect(wireKind(schema.shape.name)).toBe('string');
  });

  it('takes integers in decimal digits, trimming surrounding whitespace', () => {
    expect(fromWire({ quality: '50' })).toEqual({ ok: true, value: { quality: 50 } });
    expect(fromWire({ quality: ' 50\n' })).toEqual({ ok: true, value: { quality: 50 } });
    expect(fromWire({ quality: '050' })).toEqual({ ok: true, value: { quality: 50 } });
    expect(fromWire({ offset: '-3' })).toEqual({ ok: true, value: { quality: 80, offset: -3 } });
  });

  it('refuses every other spelling of an integer, naming the field', () => {
    for (const raw of [
      '0x32',
      '0o62',
      '0b110010',
      '1e2',
      '5e1',
      '+50',
      '50.0',
      '50.5',
      '.5',
      'Infinity',
      '-Infinity',
      'NaN',
      '',
      ' ',
      '50 50',
      '5_0',
      '٥٠',
      'high',
    ]) {
      expect(fromWire({ quality: raw }), JSON.stringify(raw)).toEqual({
        ok: false,
        error: 'Invalid quality: must be a whole number in decimal digits',
      });
    }
  });

  it('still applies the schema after decoding', () => {
    expect(fromWire({ quality: '9' })).toMatchObject({ ok: false, error: expect.stringMatching(/^Invalid quality: /) });
    expect(fromWire({ quality: '99999999999999999999' })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^Invalid quality: /),
    });
  });

  it('takes other numbers in decimal digits, with a fraction', () => {
    expect(fromWire({ ratio: '1.5' })).toEqual({ ok: true, value: { quality: 80, ratio: 1.5 } });
    expect(fromWire({ ratio: '-0.25' })).toEqual({ ok: true, value: { quality: 80, ratio: -0.25 } });
    expect(fromWire({ ratio: '.5' })).toEqual({ ok: true, value: { quality: 80, ratio: 0.5 } });
    for (const raw of ['0x10', '1e3', '+1', 'Infinity', '1.', '', '1,5']) {
      expect(fromWire({ ratio: raw }), JSON.stringify(raw)).toEqual({
        ok: false,
        error: 'Invalid ratio: must be a number in decimal digits',
      });
    }
  });

  it('leaves values from GraphQL and tRPC to the schema', () => {
    expect(parseOptions(schema, { quality: 50 }, { fromStrings: false, operation: 'test' })).toEqual({
      ok: true,
      value: { quality: 50 },
    });
    expect(parseOptions(schema, { quality: 50.5 }, { fromStrings: false, operation: 'test' })).toMatchObject({
      ok: false,
    });
  });

  it('decodes booleans and JSON, and refuses unknown fields', () => {
    expect(fromWire({ flag: 'true', box: '{"width":3}' })).toEqual({
      ok: true,
      value: { quality: 80, flag: true, box: { width: 3 } },
    });
    expect(fromWire({ flag: 'yes' })).toEqual({ ok: false, error: 'flag must be true or false' });
    expect(fromWire({ box: '{' })).toEqual({ ok: false, error: 'box must be a JSON string' });
    expect(fromWire({ qualty: '50' })).toEqual({ ok: false, error: "Field 'qualty' does not apply to test" });
  });

  it('refuses fields named after Object.prototype members (GraphQL options arrive as parsed JSON)', () => {
    for (const name of ['__proto__', 'constructor', 'toString']) {
      const options = JSON.parse(`{"${name}": 1}`) as Record<string, unknown>;
      expect(parseOptions(schema, options, { fromStrings: false, operation: 'test' })).toEqual({
        ok: false,
        error: `Field '${name}' does not apply to test`,
      });
    }
  });
});
