import { tmpdir } from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import { expect, it } from 'vitest';
import type { Services } from '../../../core/services/index.js';
import { graphqlRoutes } from './index.js';

it('a schema that cannot be built answers 503 with an error, not a 500, built once', async () => {
  let builds = 0;
  const services = {
    get capabilities(): never {
      builds++;
      throw new Error('a plugin option Pothos cannot express');
    },
  } as unknown as Services;
  const app = Fastify();
  await graphqlRoutes(app, {
    services,
    tmpDir: path.join(tmpdir(), 'transmute-graphql-unavailable'),
    cookies: { publicUrl: 'http://transmute.test' },
  });
  try {
    for (let i = 0; i < 2; i++) {
      const answer = await app.inject({ method: 'POST', url: '/graphql', payload: { query: '{ __typename }' } });
      expect(answer.statusCode).toBe(503);
      expect(answer.json()).toEqual({ error: expect.stringMatching(/^GraphQL is unavailable on this server/) });
    }
    expect(builds).toBe(1);
  } finally {
    await app.close();
  }
});
