/** The REST surface of shared/spec/API.md: thin routes over the services. */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { historyQuerySchema, signedUrlRequestSchema } from '../../../schema/index.js';
import { describeIssue } from '../../../core/contract/options.js';
import { badRequest } from '../../../core/services/errors.js';
import type { Principal, Services } from '../../../core/services/index.js';
import { readMultipart } from './multipart.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
}

/** Authenticate the bearer key and count the request against the plan's rate limit. */
export function authenticate(services: Services) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const principal = await services.accounts.authenticate(request.headers.authorization);
    request.principal = principal;
    request.log = request.log.child({ accountId: principal.account.id });
    const rate = await services.rateLimits.hit(principal);
    setRateHeaders(reply, rate);
  };
}

export function setRateHeaders(reply: FastifyReply, rate: { limit: number; remaining: number; resetSeconds: number }) {
  reply.header('RateLimit-Limit', rate.limit).header('RateLimit-Remaining', rate.remaining).header('RateLimit-Reset', rate.resetSeconds);
}

function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new Error('route registered without authentication');
  return request.principal;
}

function contentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

export async function restRoutes(app: FastifyInstance, { services }: { services: Services }) {
  const auth = authenticate(services);

  app.post('/api/v1/convert', { preHandler: auth }, async (request) => {
    const principal = principalOf(request);
    const { maxFileBytes } = services.accounts.limitsOf(principal.account);
    const form = await readMultipart(request, services.uploads, { fileField: 'file', maxFiles: 1, maxFileBytes });
    const { to, op, ...fields } = form.fields;
    return services.jobs.accept(principal, { upload: form.files[0]!, to, op, fields, fieldsAreStrings: true, viaApi: true });
  });

  app.post('/api/pdf/merge', { preHandler: auth }, async (request) => {
    const principal = principalOf(request);
    const maxFiles = services.jobs.admitMerge(principal);
    const { maxFileBytes } = services.accounts.limitsOf(principal.account);
    const form = await readMultipart(request, services.uploads, { fileField: 'files', maxFiles, maxFileBytes });
    if (Object.keys(form.fields).length) {
      await services.uploads.discard(...form.files);
      throw badRequest(`Unexpected field '${Object.keys(form.fields)[0]}': merge takes only 'files'`);
    }
    return services.jobs.acceptMerge(principal, form.files, true);
  });

  app.post('/api/batch/convert', { preHandler: auth }, async (request) => {
    const principal = principalOf(request);
    const maxFiles = services.batches.admit(principal);
    const { maxFileBytes } = services.accounts.limitsOf(principal.account);
    const form = await readMultipart(request, services.uploads, { fileField: 'files', maxFiles, maxFileBytes });
    const { to, op, ...fields } = form.fields;
    return services.batches.accept(principal, { uploads: form.files, to, op, fields, fieldsAreStrings: true, viaApi: true });
  });

  app.get<{ Params: { id: string } }>('/api/batch/:id', { preHandler: auth }, async (request) =>
    services.batches.status(principalOf(request), request.params.id),
  );

  app.get<{ Params: { id: string } }>('/api/batch/:id/download', { preHandler: auth }, async (request, reply) => {
    const { stream, filename } = await services.batches.zip(principalOf(request), request.params.id);
    return reply.header('Content-Type', 'application/zip').header('Content-Disposition', contentDisposition(filename)).send(stream);
  });

  // Extraction tools: one submit and one poll route per extract plugin (and spec tool), from the registry.
  for (const { tool } of services.capabilities.extractionTools()) {
    app.post(`/api/${tool}`, { preHandler: auth }, async (request) => {
      const principal = principalOf(request);
      const maxFiles = services.extractions.admit(principal, tool);
      const { maxFileBytes } = services.accounts.limitsOf(principal.account);
      const form = await readMultipart(request, services.uploads, {
        fileField: 'files', maxFiles, maxFileBytes, tooMany: () => services.extractions.tooManyFiles(principal, tool),
      });
      return services.extractions.accept(principal, tool, { uploads: form.files, fields: form.fields, fieldsAreStrings: true, viaApi: true });
    });
    app.get<{ Params: { id: string } }>(`/api/${tool}/:id`, { preHandler: auth }, async (request) =>
      services.extractions.poll(principalOf(request), tool, request.params.id),
    );
  }

  app.get<{ Params: { jobId: string } }>('/api/v1/jobs/:jobId', { preHandler: auth }, async (request) =>
    services.jobs.status(principalOf(request), request.params.jobId),
  );

  app.get<{ Params: { token: string } }>('/api/download/:token', async (request, reply) => {
    const download = await services.downloads.open(request.params.token);
    return reply
      .header('Content-Type', 'application/octet-stream')
      .header('Content-Length', download.bytes)
      .header('Content-Disposition', contentDisposition(download.filename))
      .header('Cache-Control', 'private, no-store')
      .send(download.stream);
  });

  app.post('/api/v1/signed-url', { preHandler: auth }, async (request) => {
    const parsed = signedUrlRequestSchema.safeParse(request.body ?? {});
    if (!parsed.success) throw badRequest(`Invalid ${describeIssue(parsed.error)}`);
    return services.downloads.createSignedUrl(principalOf(request), parsed.data);
  });

  app.get('/api/v1/credits', { preHandler: auth }, async (request) => services.credits.balance(principalOf(request).account));

  app.get('/api/v1/history', { preHandler: auth }, async (request) => {
    const parsed = historyQuerySchema.safeParse(request.query ?? {});
    if (!parsed.success) throw badRequest(`Invalid ${describeIssue(parsed.error)}`);
    return services.jobs.history(principalOf(request), parsed.data.limit, parsed.data.offset);
  });

  // Beyond the spec: the capability index, straight from the registry.
  app.get('/api/v1/formats', { preHandler: auth }, async () => services.capabilities.formats());
}
