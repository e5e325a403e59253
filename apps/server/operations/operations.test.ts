import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { historyQuerySchema, jobStatusSchema } from '../../../schema/index.js';
import { ServiceError } from '../../../core/services/errors.js';
import { decodeInput } from './operation.js';
import { serialisationSchema } from './routes.js';
import { fastifyPath } from './openapi.js';

describe('the operation table on REST', () => {
  it('decodes every input in one place, with one wording', () => {
    expect(decodeInput(historyQuerySchema, { limit: '5' })).toEqual({ limit: 5, offset: 0 });
    expect(decodeInput(historyQuerySchema, undefined)).toEqual({ limit: 50, offset: 0 });
    let refusal: unknown;
    try {
      decodeInput(historyQuerySchema, { limit: '0' });
    } catch (err) {
      refusal = err;
    }
    expect(refusal).toBeInstanceOf(ServiceError);
    expect((refusal as ServiceError).message).toMatch(/^Invalid limit: /);
  });

  it('turns OpenAPI path templates into Fastify routes', () => {
    expect(fastifyPath('/api/batch/{id}/download')).toBe('/api/batch/:id/download');
  });

  it('serialises an answer from its output schema: declared fields only, a missing one left out', async () => {
    const app = Fastify();
    app.get('/job', { schema: { response: { 200: serialisationSchema(jobStatusSchema) } } }, async () => ({
      status: 'done',
      downloadUrl: 'http://127.0.0.1/x',
      internal: 'not on the wire',
    }));
    app.get(
      '/partial',
      { schema: { response: { 200: serialisationSchema(z.object({ a: z.string() })) } } },
      async () => ({}),
    );
    const job = await app.inject('/job');
    expect(job.json()).toEqual({ status: 'done', downloadUrl: 'http://127.0.0.1/x' });
    const partial = await app.inject('/partial');
    expect(partial.statusCode).toBe(200);
    expect(partial.json()).toEqual({});
    await app.close();
  });
});
