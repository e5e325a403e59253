/** Beyond the spec: webhook endpoints (`/api/v1/webhooks`), thin routes over WebhookService. */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { WEBHOOK_LOG_SIZE, webhookEndpointCreateSchema, webhookEndpointUpdateSchema } from '../../../schema/index.js';
import { describeIssue } from '../../../core/contract/options.js';
import { badRequest } from '../../../core/services/errors.js';
import type { Services } from '../../../core/services/index.js';
import { principalOf } from '../auth.js';

const attemptsQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(WEBHOOK_LOG_SIZE).default(WEBHOOK_LOG_SIZE),
});

function parse<T>(schema: z.ZodType<T>, value: unknown): T {
  const parsed = schema.safeParse(value ?? {});
  if (!parsed.success) throw badRequest(`Invalid ${describeIssue(parsed.error)}`);
  return parsed.data;
}

type ById = { Params: { id: string } };

export async function webhookRoutes(app: FastifyInstance, { services }: { services: Services }) {
  const { webhooks } = services;
  app.get('/api/v1/webhooks', async (request) => ({ endpoints: await webhooks.list(principalOf(request)) }));
  app.post('/api/v1/webhooks', async (request, reply) =>
    reply
      .status(201)
      .send(await webhooks.create(principalOf(request), parse(webhookEndpointCreateSchema, request.body))),
  );
  app.post('/api/v1/webhooks/default-secret', async (request) => webhooks.rotateDefaultSecret(principalOf(request)));
  app.get<ById>('/api/v1/webhooks/:id', async (request) => webhooks.get(principalOf(request), request.params.id));
  app.patch<ById>('/api/v1/webhooks/:id', async (request) =>
    webhooks.update(principalOf(request), request.params.id, parse(webhookEndpointUpdateSchema, request.body)),
  );
  app.delete<ById>('/api/v1/webhooks/:id', async (request, reply) => {
    await webhooks.remove(principalOf(request), request.params.id);
    return reply.status(204).send();
  });
  app.post<ById>('/api/v1/webhooks/:id/rotate-secret', async (request) =>
    webhooks.rotate(principalOf(request), request.params.id),
  );
  app.post<ById>('/api/v1/webhooks/:id/test', async (request) =>
    webhooks.sendTest(principalOf(request), request.params.id),
  );
  app.get<ById>('/api/v1/webhooks/:id/attempts', async (request) => ({
    attempts: await webhooks.attempts(
      principalOf(request),
      request.params.id,
      parse(attemptsQuerySchema, request.query).limit,
    ),
  }));
}
