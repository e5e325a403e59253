import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { DOCUMENT_CACHE_BYTES, MAX_REMEMBERED_DOCUMENT_CHARS, documentCaches, entryBytes } from './document-cache.js';

describe('GraphQL document caches (bounded by bytes, not entries)', () => {
  it('remembers an ordinary query', () => {
    const { documentCache } = documentCaches();
    const query = '{ formats { id } }';
    documentCache.set(query, parse(query));
    expect(documentCache.get(query)).toBeDefined();
  });

  it('does not remember a document longer than any real query (a few tokens around a huge string)', () => {
    const { documentCache, errorCache } = documentCaches();
    const query = `{ job(id: "${'x'.repeat(MAX_REMEMBERED_DOCUMENT_CHARS)}") { id } }`;
    documentCache.set(query, parse(query));
    errorCache.set(query, new Error('Syntax Error'));
    expect(documentCache.get(query)).toBeUndefined();
    expect(errorCache.get(query)).toBeUndefined();
  });

  it('counts a document dense in tokens by its tokens, well above its text', () => {
    const query = `{ ${Array.from({ length: 1_000 }, (_, i) => `a${i}: id`).join(' ')} }`;
    expect(entryBytes(parse(query), query)).toBeGreaterThan(50 * query.length);
  });

  it('holds at most DOCUMENT_CACHE_BYTES of documents, dropping the least recently used', () => {
    const { documentCache } = documentCaches();
    const size = MAX_REMEMBERED_DOCUMENT_CHARS - 100;
    const count = Math.ceil((2 * DOCUMENT_CACHE_BYTES) / (2 * size));
    const queries = Array.from({ length: count }, (_, i) => `{ job(id: "${String(i).padEnd(size, 'x')}") { id } }`);
    for (const query of queries) documentCache.set(query, parse(query));
    expect(documentCache.calculatedSize).toBeLessThanOrEqual(DOCUMENT_CACHE_BYTES);
    expect(documentCache.get(queries.at(-1)!)).toBeDefined();
    expect(documentCache.get(queries[0]!)).toBeUndefined();
  });
});
