/**
 * Yoga remembers parsed documents (and parse errors) by their text, so a repeated query skips the parser. Its default
 * caches count entries (1,024 each, an hour), not bytes: a document of a few tokens may carry a string literal of
 * up to the body limit (1 MiB), so a client sending distinct ones could pin about 2 GB of text and trees in the API
 * process for an hour. These caches count characters instead, and a document longer than any real query is parsed
 * each time rather than remembered.
 */
import type { DocumentNode } from 'graphql';
import { LRUCache } from 'lru-cache';

/** Documents longer than this (characters) are not remembered: the web app's and examples' queries are a few kB. */
export const MAX_REMEMBERED_DOCUMENT_CHARS = 16_384;
/** What each cache holds at most, in document characters (a parsed tree is of the same order as its text). */
export const DOCUMENT_CACHE_CHARS = 2_000_000;
const CACHE_ENTRIES = 1_024;
const CACHE_TTL_MS = 3_600_000;

function boundedByText<Value extends object>(): LRUCache<string, Value> {
  return new LRUCache<string, Value>({
    max: CACHE_ENTRIES,
    ttl: CACHE_TTL_MS,
    maxSize: DOCUMENT_CACHE_CHARS,
    maxEntrySize: MAX_REMEMBERED_DOCUMENT_CHARS,
    sizeCalculation: (_value, document) => Math.max(1, document.length),
  });
}

/** Yoga's `parserAndValidationCache`: documents and parse errors, bounded by text; validation results as before. */
export function documentCaches() {
  return {
    documentCache: boundedByText<DocumentNode>(),
    errorCache: boundedByText<object>(),
    validationCache: true,
  };
}
