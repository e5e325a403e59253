/**
 * Yoga remembers parsed documents (and parse errors) by their text, so a repeated query skips the parser. Its default
 * caches count entries (1,024 each, an hour), not bytes: a document of a few tokens may carry a string literal of
 * up to the body limit (1 MiB), so a client sending distinct ones could pin about 2 GB of text and trees in the API
 * process for an hour. These caches count bytes instead (a parsed document's tokens and nodes as well as its text: a
 * tree dense in tokens is several times its text), and a document longer than any real query is parsed each time
 * rather than remembered.
 */
import type { DocumentNode, Token } from 'graphql';
import { LRUCache } from 'lru-cache';

/** Documents longer than this (characters) are not remembered: the web app's and examples' queries are a few kB. */
export const MAX_REMEMBERED_DOCUMENT_CHARS = 16_384;
/** What each cache holds at most, in estimated bytes. */
export const DOCUMENT_CACHE_BYTES = 32_000_000;
/** A parsed token as graphql-js keeps it (the token, its share of the AST node and Location), roughly. */
const TOKEN_BYTES = 256;
const CACHE_ENTRIES = 1_024;
const CACHE_TTL_MS = 3_600_000;

/** Tokens of a parsed document (graphql-js links them from `loc.startToken`); 0 for anything else. */
function tokenCount(value: object): number {
  let count = 0;
  let token: Token | null | undefined = (value as Partial<DocumentNode>).loc?.startToken;
  for (; token; token = token.next) count++;
  return count;
}

/** Estimated bytes of an entry: its text (UTF-16) and its tokens; past the text bound, more than any cache holds. */
export function entryBytes(value: object, text: string): number {
  if (text.length > MAX_REMEMBERED_DOCUMENT_CHARS) return DOCUMENT_CACHE_BYTES + 1;
  return Math.max(1, 2 * text.length + TOKEN_BYTES * tokenCount(value));
}

function boundedByBytes<Value extends object>(): LRUCache<string, Value> {
  return new LRUCache<string, Value>({
    max: CACHE_ENTRIES,
    ttl: CACHE_TTL_MS,
    maxSize: DOCUMENT_CACHE_BYTES,
    maxEntrySize: DOCUMENT_CACHE_BYTES,
    sizeCalculation: entryBytes,
  });
}

/** Yoga's `parserAndValidationCache`: documents and parse errors, bounded by bytes; validation results as before. */
export function documentCaches() {
  return {
    documentCache: boundedByBytes<DocumentNode>(),
    errorCache: boundedByBytes<object>(),
    validationCache: true,
  };
}
