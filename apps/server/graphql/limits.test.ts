import { readFile } from 'node:fs/promises';
import { getIntrospectionQuery, parse, validate } from 'graphql';
import { describe, expect, it } from 'vitest';
import { Registry } from '../../../core/registry/index.js';
import { CapabilityService } from '../../../core/services/capabilities.js';
import { standardPlugins } from '../../../plugins/index.js';
import { checkTokens, GRAPHQL_LIMITS, limitRules, rateWeight } from './limits.js';
import { buildGraphQLSchema } from './schema.js';

describe('GraphQL request limits', () => {
  it('let every operation of the web app through', async () => {
    const source = await readFile(new URL('../../../apps/web/src/operations.ts', import.meta.url), 'utf8');
    const documents = [...source.matchAll(/graphql\(`([^`]+)`/g)].map((match) => match[1]!);
    expect(documents.length).toBeGreaterThan(10);
    // gql.tada composes fragments into the documents that use them: each operation is sent with all of them.
    const fragments = documents.filter((document) => document.trim().startsWith('fragment')).join('\n');
    const schema = buildGraphQLSchema(new CapabilityService(new Registry(standardPlugins)));
    for (const document of documents.filter((d) => !d.trim().startsWith('fragment'))) {
      const sent = `${document}\n${fragments}`;
      expect(() => checkTokens(sent)).not.toThrow();
      expect(validate(schema, parse(sent), limitRules).map((e) => e.message)).toEqual([]);
    }
  });

  it('let the standard introspection query through (schema tools and IDEs send it)', () => {
    const query = getIntrospectionQuery({ descriptions: true, inputValueDeprecation: true, specifiedByUrl: true });
    expect(() => checkTokens(query)).not.toThrow();
    const schema = buildGraphQLSchema(new CapabilityService(new Registry(standardPlugins)));
    expect(validate(schema, parse(query), limitRules)).toEqual([]);
  });

  it('count the tokens of a document up to the limit only', () => {
    expect(() => checkTokens(`{ ${'me { id } '.repeat(GRAPHQL_LIMITS.tokens / 5)} }`)).not.toThrow();
    expect(() => checkTokens(`{ ${'me { id } '.repeat(GRAPHQL_LIMITS.tokens)} }`)).toThrow(
      /Token limit of 2000 exceeded/,
    );
    // A lexical error is the parser's to report.
    expect(() => checkTokens('{ me { id } "unterminated')).not.toThrow();
  });

  it('weigh an operation by its root fields, aliases and fragments expanded', () => {
    expect(rateWeight(parse('{ me { id } }'))).toBe(1);
    expect(rateWeight(parse('{ __typename }'))).toBe(1);
    expect(rateWeight(parse('{ a: credits { plan } b: credits { plan } me { id } }'))).toBe(3);
    expect(
      rateWeight(
        parse('query Q { ...F ... on Query { me { id } } } fragment F on Query { a: me { id } b: me { id } }'),
      ),
    ).toBe(3);
    expect(rateWeight(parse('query A { me { id } } query B { a: me { id } b: me { id } }'), 'B')).toBe(2);
  });
});
