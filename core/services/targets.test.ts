import { describe, expect, it } from 'vitest';
import { ServiceError } from './errors.js';
import { parseOp, parseTarget } from './targets.js';

const refusal = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return err instanceof ServiceError ? { code: err.code, message: err.message } : err;
  }
  throw new Error('expected a refusal');
};

describe('to and op', () => {
  it('takes exact lower-case values, trimmed', () => {
    expect(parseTarget('pdf')).toBe('pdf');
    expect(parseTarget(' webp\n')).toBe('webp');
    expect(parseTarget('jpg')).toBe('jpg');
    expect(parseOp('compress')).toBe('compress');
    expect(parseOp(undefined)).toBeUndefined();
    expect(parseOp('  ')).toBeUndefined();
  });

  it('names the target as plugins know it: jpeg is jpg (schema/formats.ts)', () => {
    expect(parseTarget('jpeg')).toBe('jpg');
    expect(parseTarget(' jpeg ')).toBe('jpg');
    // Formats that only share an extension stay themselves.
    expect(parseTarget('prores')).toBe('prores');
    expect(parseTarget('tif')).toBe('tif');
  });

  it('refuses any other case with a 400 naming the field and the expected value', () => {
    expect(refusal(() => parseTarget('PDF'))).toEqual({
      code: 'BAD_REQUEST',
      message: "Invalid 'to': formats are lower-case extensions, e.g. to=pdf",
    });
    expect(refusal(() => parseTarget('Jpg'))).toEqual({
      code: 'BAD_REQUEST',
      message: "Invalid 'to': formats are lower-case extensions, e.g. to=jpg",
    });
    expect(refusal(() => parseTarget(`X${'y'.repeat(100)}`))).toEqual({
      code: 'BAD_REQUEST',
      message: "Invalid 'to': formats are lower-case extensions, e.g. to=pdf",
    });
    expect(refusal(() => parseOp('Rotate-PDF'))).toEqual({
      code: 'BAD_REQUEST',
      message: "Invalid 'op': ops are lower-case names, e.g. op=rotate-pdf",
    });
    expect(refusal(() => parseTarget(undefined))).toEqual({
      code: 'BAD_REQUEST',
      message: "Missing 'to': the output format, e.g. to=webp",
    });
  });
});
