import { describe, expect, it } from 'vitest';
import { createMatcher, ibanValid, luhnValid, scrubText, termRegex } from './matcher.js';
import type { RedactSpec } from './options.js';

const found = (spec: Partial<RedactSpec>, text: string) =>
  createMatcher({ patterns: [], terms: [], ...spec })(text).map(({ start, end }) => text.slice(start, end));

describe('redact matcher', () => {
  it('e-mail addresses', () => {
    expect(found({ patterns: ['email'] }, 'Write to jane.doe+work@mail.example.co.uk, or j_o@x.io.')).toEqual([
      'jane.doe+work@mail.example.co.uk',
      'j_o@x.io',
    ]);
    expect(found({ patterns: ['email'] }, 'not an address: a@b, @example.com')).toEqual([]);
  });

  it('phone numbers, international and national; not years, dates, amounts or order numbers', () => {
    const text = [
      'Call +1 (555) 123-4567 or +44 20 7946 0958 or +33 1 23 45 67 89 or +49 30 1234567,',
      'in France 01 23 45 67 89, in Germany 030 1234567, in the US (555) 123-4567 and 555.123.4567 and 555-123-4567,',
      'or 0612345678. Not: 2024, 1 000 000, 12.05.2024, 2024-01-15, order 4711, 3.14159, invoice 12345678.',
    ].join(' ');
    expect(found({ patterns: ['phone'] }, text)).toEqual([
      '+1 (555) 123-4567',
      '+44 20 7946 0958',
      '+33 1 23 45 67 89',
      '+49 30 1234567',
      '01 23 45 67 89',
      '030 1234567',
      '(555) 123-4567',
      '555.123.4567',
      '555-123-4567',
      '0612345678',
    ]);
  });

  it('social security numbers, valid areas only', () => {
    expect(
      found(
        { patterns: ['ssn'] },
        'SSN 123-45-6789, 078 05 1120; not 000-12-3456, 666-12-3456, 900-12-3456, 123-00-4567, 123-45-0000, 123-45 ' +
          '6789',
      ),
    ).toEqual(['123-45-6789', '078 05 1120']);
  });

  it('credit cards that pass the Luhn check', () => {
    expect(luhnValid('4111111111111111')).toBe(true);
    expect(luhnValid('4111111111111112')).toBe(false);
    expect(
      found(
        { patterns: ['credit-card'] },
        'Visa 4111 1111 1111 1111, MC 5500-0000-0000-0004, Amex 378282246310005; not 4111 1111 1111 1112',
      ),
    ).toEqual(['4111 1111 1111 1111', '5500-0000-0000-0004', '378282246310005']);
  });

  it('IBANs that pass the mod-97 check, grouped or not, followed by words', () => {
    expect(ibanValid('DE89370400440532013000')).toBe(true);
    expect(ibanValid('DE89370400440532013001')).toBe(false);
    expect(
      found(
        { patterns: ['iban'] },
        'Pay DE89 3704 0044 0532 0130 00 and GB82WEST12345698765432 today; not DE89 3704 0044 0532 0130 01 here',
      ),
    ).toEqual(['DE89 3704 0044 0532 0130 00', 'GB82WEST12345698765432']);
    expect(found({ patterns: ['iban'] }, 'fr14 2004 1010 0505 0001 3m02 606')).toEqual([
      'fr14 2004 1010 0505 0001 3m02 606',
    ]);
  });

  it('terms: case-insensitive whole words, spaces optional between letters', () => {
    const spec = { terms: ['Project Falcon', 'Ann'] };
    expect(
      found(spec, 'PROJECT FALCON, project\nfalcon, ProjectFalcon, P r o j e c t Falcon; Annual report by Ann.'),
    ).toEqual(['PROJECT FALCON', 'project\nfalcon', 'ProjectFalcon', 'P r o j e c t Falcon', 'Ann']);
    expect(termRegex('a.b (c)').test('A.B (C)')).toBe(true);
    expect(found({ terms: ['東京'] }, '東京都の天気')).toEqual(['東京']);
  });

  it('terms holding a hyphen or any other punctuation are matched literally', () => {
    expect(found({ terms: ['Jean-Luc', '555-1234'] }, 'Call Jean-Luc at 555-1234, not Jean Luc.')).toEqual([
      'Jean-Luc',
      '555-1234',
    ]);
    const punctuation = '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~';
    for (const ch of punctuation) expect(termRegex(`a${ch}b`).test(`x a${ch}b y`), ch).toBe(true);
  });

  it('merges overlapping matches and scrubs them out of a string', () => {
    const matcher = createMatcher({ patterns: ['email'], terms: ['jane'] });
    expect(scrubText('Mail jane.doe@example.com or Jane', matcher)).toEqual({ text: 'Mail  or ', removed: 2 });
    expect(scrubText('nothing here', matcher)).toEqual({ text: 'nothing here', removed: 0 });
  });
});
