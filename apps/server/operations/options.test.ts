import { describe, expect, it } from 'vitest';
import { argumentOptions, formOptions, jsonOptions, oneOfOptions, withQuality } from './options.js';

const convertFields = new Map([
  ['image-resize', 'imageResize'],
  ['image-compress', 'imageCompress'],
]);

describe('submitted options, one decoder for every surface', () => {
  it('takes a REST form as wire strings', () => {
    expect(formOptions({ quality: '60' })).toEqual({ fields: { quality: '60' }, fieldsAreStrings: true });
  });

  it("reads tRPC's JSON object string, refusing anything but an object", () => {
    expect(jsonOptions('{"quality":60}')).toEqual({ fields: { quality: 60 }, fieldsAreStrings: false });
    expect(jsonOptions(undefined)).toEqual({ fields: {}, fieldsAreStrings: false });
    expect(jsonOptions('  ')).toEqual({ fields: {}, fieldsAreStrings: false });
    for (const raw of ['[1]', 'null', '3', '{oops']) {
      expect(() => jsonOptions(raw)).toThrow('options must be a JSON object string');
    }
  });

  it("reads GraphQL's @oneOf ConvertOptions: the plugin it names, nulls left to the defaults", () => {
    expect(oneOfOptions({ imageResize: { resize: { width: 200, height: null } } }, convertFields)).toEqual({
      fields: { resize: { width: 200 } },
      fieldsAreStrings: false,
      optionsFor: 'image-resize',
    });
    expect(oneOfOptions(undefined, convertFields)).toEqual({ fields: {}, fieldsAreStrings: false });
    expect(() => oneOfOptions({ other: { quality: 1 } }, convertFields)).toThrow(
      'options takes exactly one plugin field',
    );
    expect(argumentOptions({ query: 'x', wholeWord: null })).toEqual({
      fields: { query: 'x' },
      fieldsAreStrings: false,
    });
  });

  it('adds quality given beside the options, with one rule on every surface', () => {
    // Alone as text (tRPC): decoded by the plugin like a form field.
    expect(withQuality(jsonOptions(undefined), '80')).toEqual({ fields: { quality: '80' }, fieldsAreStrings: true });
    // Beside typed options: a number.
    expect(withQuality(jsonOptions('{"lossless":false}'), '80')).toEqual({
      fields: { lossless: false, quality: 80 },
      fieldsAreStrings: false,
    });
    expect(() => withQuality(jsonOptions('{"lossless":false}'), '8O')).toThrow(
      'Invalid quality: must be a number in decimal digits',
    );
    expect(withQuality(oneOfOptions({ imageCompress: {} }, convertFields), 70)).toMatchObject({
      fields: { quality: 70 },
      optionsFor: 'image-compress',
    });
    expect(withQuality(formOptions({}), undefined)).toEqual(formOptions({}));
    expect(() => withQuality(jsonOptions('{"quality":50}'), '80')).toThrow(
      'quality is given twice: in options and on its own',
    );
    expect(() => withQuality(oneOfOptions({ imageCompress: { quality: 50 } }, convertFields), 80)).toThrow(
      'quality is given twice: in options and on its own',
    );
  });
});
