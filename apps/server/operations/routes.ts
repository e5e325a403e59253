/**
 * The REST surface, generated from the operation table: one Fastify route per operation, its input
 * decoded by its zod (one place, one wording: `Invalid <field>: <reason>`), its JSON answer
 * serialised by Fastify from the output schema (fast-json-stringify: no generic JSON.stringify on
 * the hot poll routes).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AcceptedJob } from '../../../schema/index.js';
import { z } from 'zod';
import type { Services } from '../../../core/services/index.js';
import { principalOf } from '../auth.js';
import { isMultipart, stageMultipart } from '../multipart.js';
import { acceptedOrFinished } from './forms.js';
import { fileFieldOf, fileLimitOf, filesOrUrl, submissionFields, urlFieldOf } from './submission.js';
import { renderDocsPage } from '../docs-page.js';
import { buildOpenApiDocument, fastifyPath } from './openapi.js';
import { decodeInput, type AnyOperation } from './operation.js';
import { operationTable } from './table.js';

/**
 * The output's JSON Schema for serialising (not validating): `required` is dropped so a field the
 * services leave out is left out, never a 500.
 */
export function serialisationSchema(schema: z.ZodType): object {
  const strip = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(strip);
    if (!node || typeof node !== 'object') return node;
    return Object.fromEntries(
      Object.entries(node)
        .filter(([key]) => key !== 'required' && key !== '$schema')
        .map(([key, value]) => [key, strip(value)]),
    );
  };
  return strip(z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any' })) as object;
}

/**
 * A file-taking operation's REST handler: its multipart form staged under the caller's plan (its
 * file count checked before a file past it is read), decoded by the one form decoder
 * (submission.ts), then its `submit`; a pipeline also takes its request as JSON.
 * `Prefer: wait=N` where the operation documents it.
 */
function submitHandler(services: Services, spec: AnyOperation) {
  const submit = spec.submit!;
  const prefersWait = spec.headers?.some(({ name }) => name === 'Prefer') ?? false;
  const answer = (request: FastifyRequest, reply: FastifyReply, accepted: AcceptedJob) =>
    prefersWait ? acceptedOrFinished(services, request, reply, accepted) : accepted;
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const principal = principalOf(request);
    if (spec.files === 'json or one file' && !isMultipart(request))
      return answer(
        request,
        reply,
        await submit(services, principal, { files: [], pipeline: request.body, viaApi: true }),
      );
    const { maxFiles, tooMany } = fileLimitOf(spec, services, principal);
    const urlField = urlFieldOf(spec);
    const form = await stageMultipart(request, services.uploads, principal, {
      fileField: fileFieldOf(spec.files),
      maxFiles,
      tooMany,
      ...(urlField ? { urlField } : {}),
    });
    let fields: ReturnType<typeof submissionFields>;
    try {
      filesOrUrl(spec, form.files.length, undefined);
      fields = submissionFields(spec, 'fields', form.fields);
    } catch (error) {
      await services.uploads.discard(...form.files);
      throw error;
    }
    return answer(request, reply, await submit(services, principal, { ...fields, files: form.files, viaApi: true }));
  };
}

function registerOperation(app: FastifyInstance, services: Services, spec: AnyOperation): void {
  const { handle, run, submit, output } = spec;
  if (!handle && !run && !submit) return;
  const submitting = !handle && submit ? submitHandler(services, spec) : undefined;
  const serialised = output.schema && !output.loose && !output.binary;
  app.route({
    method: spec.method,
    url: fastifyPath(spec.path),
    ...(spec.auth === 'public' ? { config: { auth: 'public' as const } } : {}),
    ...(serialised ? { schema: { response: { [output.status]: serialisationSchema(output.schema!) } } } : {}),
    handler: async (request, reply) => {
      if (submitting) return submitting(request, reply);
      const params = decodeInput(spec.params, request.params);
      const query = decodeInput(spec.query, request.query);
      // Multipart bodies are read by the handler (files stream to disk under the caller's limits).
      const body = spec.body ? decodeInput(spec.body, request.body) : request.body;
      if (handle) return handle({ services, request, reply, params, query, body });
      const input = { ...(params as object), ...(query as object), ...(spec.body ? (body as object) : {}) };
      const answer = await run!(services, principalOf(request), input);
      return output.status === 200 ? answer : reply.status(output.status).send(answer);
    },
  });
}

/**
 * Every operation of the table as a route, and the document generated from the same table at /api/openapi.json and
 * /docs.
 */
export async function operationRoutes(
  app: FastifyInstance,
  { services, publicUrl }: { services: Services; publicUrl: string },
) {
  // The registry is fixed once the server runs: the table, the document and the page are made once.
  const table = operationTable(services);
  for (const spec of table) registerOperation(app, services, spec);
  const document = buildOpenApiDocument(table, publicUrl);
  const page = renderDocsPage(document);
  app.get('/api/openapi.json', { config: { auth: 'public' } }, async () => document);
  app.get('/docs', { config: { auth: 'public' } }, async (_request, reply) =>
    reply.type('text/html; charset=utf-8').send(page),
  );
}
