/**
 * Literal search over text segments (a line, a page, a paragraph, a cell). Text and query are
 * NFC-normalised and white space runs collapse to one space before matching, so a phrase broken
 * across lines of a PDF page still matches and a snippet is plain one-line text.
 */

export interface SearchQuery {
  query: string;
  wholeWord: boolean;
  caseSensitive: boolean;
}

export interface Match {
  /** Where in the file: "line 4", "page 3", "paragraph 12", "Sheet1!B4". */
  location: string;
  /** Plain text around the hit. */
  snippet: string;
  /** Where the hit starts within `snippet` (UTF-16 code units, as JavaScript strings count). */
  offset: number;
  length: number;
}

/** Matches returned per file; `count` keeps counting past it. */
export const MAX_MATCHES = 100;
/** Characters of context kept on each side of a hit. */
export const SNIPPET_CONTEXT = 60;
const ELLIPSIS = '…';

// A "word" character for whole-word matching: letters, digits, combining marks and underscore.
const WORD_CHAR = String.raw`[\p{L}\p{M}\p{N}_]`;

/** Escape every character that has a meaning in a `u`-mode pattern (the query is never a regex). */
function escapeLiteral(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&');
}

export function normalizeText(text: string): string {
  return text.normalize('NFC').replace(/\s+/gu, ' ');
}

export function compileQuery({ query, wholeWord, caseSensitive }: SearchQuery): RegExp {
  const literal = escapeLiteral(normalizeText(query));
  const pattern = wholeWord ? `(?<!${WORD_CHAR})${literal}(?!${WORD_CHAR})` : literal;
  // `u` gives Unicode simple case folding with `i` (Ä = ä), and makes \p{...} work.
  return new RegExp(pattern, caseSensitive ? 'gu' : 'giu');
}

/** Whether `index` falls between the halves of a surrogate pair (never cut a snippet there). */
function splitsPair(text: string, index: number): boolean {
  const code = text.charCodeAt(index);
  return index > 0 && index < text.length && code >= 0xdc00 && code <= 0xdfff;
}

function snippetAround(text: string, start: number, end: number): Pick<Match, 'snippet' | 'offset' | 'length'> {
  let from = Math.max(0, start - SNIPPET_CONTEXT);
  let to = Math.min(text.length, end + SNIPPET_CONTEXT);
  if (splitsPair(text, from)) from += 1;
  if (splitsPair(text, to)) to -= 1;
  const before = text.slice(from, start).trimStart();
  const after = text.slice(end, to).trimEnd();
  const prefix = from > 0 ? ELLIPSIS : '';
  const suffix = to < text.length ? ELLIPSIS : '';
  const hit = text.slice(start, end);
  return { snippet: prefix + before + hit + after + suffix, offset: prefix.length + before.length, length: hit.length };
}

/** Collects the hits of one file: every hit is counted, the first MAX_MATCHES are kept. */
export class MatchCollector {
  readonly matches: Match[] = [];
  count = 0;
  private readonly pattern: RegExp;

  constructor(query: SearchQuery) {
    this.pattern = compileQuery(query);
  }

  /** Search one segment of the file. */
  search(location: string, rawText: string): void {
    const text = normalizeText(rawText);
    for (const hit of text.matchAll(this.pattern)) {
      this.count += 1;
      if (this.matches.length < MAX_MATCHES) {
        this.matches.push({ location, ...snippetAround(text, hit.index, hit.index + hit[0].length) });
      }
    }
  }

  get truncated(): boolean {
    return this.count > this.matches.length;
  }
}
