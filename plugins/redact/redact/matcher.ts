/**
 * What the redact op looks for, as ranges of a text: the patterns (e-mail, phone, SSN,
 * credit card with its Luhn check, IBAN with its mod-97 check) and the terms (exact phrases,
 * case-insensitive, whole words, white space optional between their letters so a phrase split
 * across text-show operators or spread by kerning is still one match). The same matcher runs on
 * page text, on every string of the document and on XMP, so what is removed is the same
 * everywhere.
 */
import type { PatternName, RedactSpec } from './options.js';

export interface Range {
  start: number;
  end: number;
}

type Finder = (text: string) => Range[];

function* regexMatches(text: string, regex: RegExp): Generator<RegExpExecArray> {
  const global = new RegExp(regex.source, regex.flags.includes('g') ? regex.flags : `${regex.flags}g`);
  for (let match = global.exec(text); match; match = global.exec(text)) {
    if (match[0] === '') global.lastIndex++;
    else yield match;
  }
}

const digitsOf = (text: string) => text.replace(/\D/g, '');

/** Luhn's check digit test (credit cards). */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** ISO 13616 check (IBAN): the first four characters moved to the end, letters as 10-35, mod 97 is 1. */
export function ibanValid(compact: string): boolean {
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(compact)) return false;
  const rearranged = compact.slice(4) + compact.slice(0, 4);
  let remainder = 0;
  for (const ch of rearranged) {
    const value = /\d/.test(ch) ? ch : String(ch.charCodeAt(0) - 55);
    for (const digit of value) remainder = (remainder * 10 + Number(digit)) % 97;
  }
  return remainder === 1;
}

const EMAIL =
  /(?<![\p{L}\p{N}._%+-])[\p{L}\p{N}._%+-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)*\.\p{L}{2,}(?![\p{L}\p{N}])/iu;

/** Digit groups separated by a space, dot or dash, optionally a +country code and an (area) code. */
const PHONE = new RegExp(
  String.raw`(?<![\p{L}\p{N}+])(?:\+\d{1,3}[ \u00a0.-]?)?(?:\(\d{1,5}\)[ \u00a0.-]?)?` +
    String.raw`\d{1,15}(?:[ \u00a0.-]\d{1,8}){0,6}(?![\p{L}\p{N}])`,
  'u',
);
const NANP = /^\(?\d{3}\)?[ \u00a0.-]?\d{3}[ \u00a0.-]\d{4}$/;
const DATE = /^\d{1,4}[./-]\d{1,2}[./-]\d{1,4}$/;

function phones(text: string): Range[] {
  const found: Range[] = [];
  for (const match of regexMatches(text, PHONE)) {
    const value = match[0];
    const digits = digitsOf(value).length;
    if (digits < 7 || digits > 15 || DATE.test(value)) continue;
    // International (+33 ...), an area code in parentheses, a national trunk prefix (01 23 45 67 89, 030 1234567)
    // or the North American 555-123-4567 shape; a bare number (a year, an amount, an order number) is not a phone.
    const separated = /[ \u00a0.-]/.test(value);
    if (
      value.startsWith('+') ||
      value.startsWith('(') ||
      NANP.test(value) ||
      (value.startsWith('0') && (separated || digits >= 10))
    ) {
      found.push({ start: match.index, end: match.index + value.length });
    }
  }
  return found;
}

const SSN = /(?<![\p{N}-])(\d{3})([- ])(\d{2})\2(\d{4})(?![\p{N}-])/u;

function ssns(text: string): Range[] {
  const found: Range[] = [];
  for (const match of regexMatches(text, SSN)) {
    const [, area, , group, serial] = match;
    if (area === '000' || area === '666' || area!.startsWith('9') || group === '00' || serial === '0000') continue;
    found.push({ start: match.index, end: match.index + match[0].length });
  }
  return found;
}

const CARD = /(?<![\p{N}])\d(?:[ -]?\d){12,18}(?![\p{N}])/u;

function cards(text: string): Range[] {
  const found: Range[] = [];
  for (const match of regexMatches(text, CARD)) {
    const digits = digitsOf(match[0]);
    if (digits.length >= 13 && digits.length <= 19 && luhnValid(digits))
      found.push({ start: match.index, end: match.index + match[0].length });
  }
  return found;
}

/**
 * Greedy: may swallow the words after the IBAN, so the longest prefix ending at a group boundary that checks out wins.
 */
const IBAN_CANDIDATE = /(?<![\p{L}\p{N}])[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}/iu;

function ibans(text: string): Range[] {
  const found: Range[] = [];
  const regex = new RegExp(IBAN_CANDIDATE.source, 'giu');
  for (let match = regex.exec(text); match; match = regex.exec(text)) {
    const raw = match[0];
    const ends = [raw.length, ...[...raw.matchAll(/ /g)].map((space) => space.index)].sort((a, b) => b - a);
    const end = ends.find(
      (candidate) =>
        ibanValid(raw.slice(0, candidate).replace(/ /g, '').toUpperCase()) &&
        !/[\p{L}\p{N}]/u.test(text[match!.index + candidate] ?? ''),
    );
    if (end === undefined) {
      regex.lastIndex = match.index + 1;
      continue;
    }
    found.push({ start: match.index, end: match.index + end });
    // What the candidate swallowed after the IBAN is searched again.
    regex.lastIndex = match.index + end;
  }
  return found;
}

const FINDERS: Record<PatternName, Finder> = {
  email: (text) => [...regexMatches(text, EMAIL)].map((m) => ({ start: m.index, end: m.index + m[0].length })),
  phone: phones,
  ssn: ssns,
  'credit-card': cards,
  iban: ibans,
};

// Only the characters with a meaning outside a class: under the `u` flag any other escaped one (`\-`) is an error.
const escapeRegex = (ch: string) => ch.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
/** Scripts written without spaces between words: no word boundary is asked for there. */
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}]/u;
const WORD = /[\p{L}\p{N}]/u;

/** A term as a regex: its characters in order, white space optional between any two, whole words. */
export function termRegex(term: string): RegExp {
  const chars = [...term.normalize('NFKC').replace(/\s+/g, '')];
  const body = chars.map(escapeRegex).join('\\s*');
  const first = chars[0] ?? '';
  const last = chars[chars.length - 1] ?? '';
  const before = WORD.test(first) && !UNSPACED.test(first) ? '(?<![\\p{L}\\p{N}])' : '';
  const after = WORD.test(last) && !UNSPACED.test(last) ? '(?![\\p{L}\\p{N}])' : '';
  return new RegExp(`${before}${body}${after}`, 'iu');
}

/** Sorted ranges, overlapping or touching ones merged into one. */
export function mergeRanges(ranges: readonly Range[]): Range[] {
  const sorted = [...ranges].sort((a, b) => a.start - b.start || b.end - a.end);
  const merged: Range[] = [];
  for (const range of sorted) {
    const previous = merged[merged.length - 1];
    if (previous && range.start <= previous.end) previous.end = Math.max(previous.end, range.end);
    else merged.push({ ...range });
  }
  return merged;
}

export type Matcher = (text: string) => Range[];

/** The matcher for a redact spec: every pattern and term, ranges merged. */
export function createMatcher({ patterns, terms }: RedactSpec): Matcher {
  const finders: Finder[] = patterns.map((name) => FINDERS[name]);
  for (const term of terms) {
    const regex = termRegex(term);
    finders.push((text) => [...regexMatches(text, regex)].map((m) => ({ start: m.index, end: m.index + m[0].length })));
  }
  return (text) => mergeRanges(finders.flatMap((find) => find(text)));
}

/** `text` without the matched ranges, and how many there were. */
export function scrubText(text: string, matcher: Matcher): { text: string; removed: number } {
  const ranges = matcher(text);
  if (!ranges.length) return { text, removed: 0 };
  let out = '';
  let at = 0;
  for (const { start, end } of ranges) {
    out += text.slice(at, start);
    at = end;
  }
  return { text: out + text.slice(at), removed: ranges.length };
}
