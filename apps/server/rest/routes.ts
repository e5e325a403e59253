/** The REST surface of shared/spec/API.md: thin routes over the services. */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  historyQuerySchema,
  signedUrlRequestSchema,
  type AcceptedJob,
  type PipelineRequest,
} from '../../../schema/index.js';
import { describeIssue } from '../../../core/contract/options.js';
import { badRequest } from '../../../core/services/errors.js';
import type { Services } from '../../../core/services/index.js';
import type { FormRules, StagedForm, StagedUpload } from '../../../core/services/uploads.js';
import type { ExportTarget } from '../../../core/services/exports.js';
import { principalOf } from '../auth.js';
import { isMultipart, stageMultipart } from '../multipart.js';
import { webhookRoutes } from './webhooks.js';

/**
 * The request's form with its files staged under the caller's plan (one reader, one UploadService
 * call); at least one file.
 */
async function readForm(
  services: Services,
  request: FastifyRequest,
  rules: FormRules & { fileField: string },
): Promise<StagedForm> {
  const form = await stageMultipart(request, services.uploads, principalOf(request), rules);
  if (form.files.length === 0) {
    throw badRequest(
      `Missing '${rules.fileField}': attach the file to convert${rules.urlField ? ` (or give its URL as '${rules.urlField}')` : ''}`,
    );
  }
  return form;
}

/** The `export` field checked before the job is accepted (400 first, nothing charged); the staged files go on a refusal. */
async function checkExport(
  services: Services,
  raw: string | undefined,
  staged: StagedUpload[],
): Promise<ExportTarget | undefined> {
  if (raw === undefined) return undefined;
  try {
    return await services.exports.check(raw);
  } catch (err) {
    await services.uploads.discard(...staged);
    throw err;
  }
}

/** The longest `Prefer: wait=N` honoured, in seconds (issue 27). */
export const MAX_PREFER_WAIT_S = 60;

/** N of an RFC 7240 `Prefer: wait=N` header (at most 60), or undefined. */
export function preferredWait(header: string | string[] | undefined): number | undefined {
  const text = Array.isArray(header) ? header.join(',') : header;
  const match = text ? /(?:^|[\s,;])wait\s*=\s*"?(\d{1,6})"?/i.exec(text) : null;
  return match ? Math.min(MAX_PREFER_WAIT_S, Number(match[1])) : undefined;
}

/**
 * The accepted answer, or with `Prefer: wait=N` the accepted fields plus the final status when
 * the job finishes within N seconds (`Preference-Applied: wait=N` either way: the server waited).
 */
async function acceptedOrFinished(
  services: Services,
  request: FastifyRequest,
  reply: FastifyReply,
  accepted: AcceptedJob,
) {
  const wait = preferredWait(request.headers.prefer);
  if (wait === undefined) return accepted;
  reply.header('Preference-Applied', `wait=${wait}`);
  const final = wait > 0 ? await services.jobs.waitFor(principalOf(request), accepted.jobId, wait * 1000) : undefined;
  return final ? { ...accepted, ...final } : accepted;
}

function contentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

export async function restRoutes(app: FastifyInstance, { services }: { services: Services }) {
  app.post('/api/v1/convert', async (request, reply) => {
    const principal = principalOf(request);
    const form = await readForm(services, request, { fileField: 'file', urlField: 'url', maxFiles: 1 });
    const { to, op, webhookUrl, export: exportField, ...fields } = form.fields;
    const target = await checkExport(services, exportField, form.files);
    const accepted = await services.jobs.accept(principal, {
      upload: form.files[0]!,
      to,
      op,
      fields,
      fieldsAreStrings: true,
      viaApi: true,
      webhookUrl,
    });
    if (target) await services.exports.start(accepted.jobId, target);
    return acceptedOrFinished(services, request, reply, accepted);
  });

  // Beyond the spec (issue 27): a chain of steps in one job, on an uploaded file or a URL.
  app.post('/api/v1/pipelines', async (request, reply) => {
    const principal = principalOf(request);
    let accepted: AcceptedJob;
    if (isMultipart(request)) {
      const form = await readForm(services, request, { fileField: 'file', maxFiles: 1 });
      const { pipeline, ...rest } = form.fields;
      let parsed: PipelineRequest;
      try {
        if (Object.keys(rest).length)
          throw badRequest(
            `Unexpected field '${Object.keys(rest)[0]}': a pipeline takes 'file' and 'pipeline' (its JSON)`,
          );
        parsed = services.pipelines.parse(pipeline ?? '{}');
      } catch (err) {
        await services.uploads.discard(...form.files);
        throw err;
      }
      accepted = await services.pipelines.submit(principal, parsed, form.files[0], true);
    } else {
      accepted = await services.pipelines.submit(principal, services.pipelines.parse(request.body), undefined, true);
    }
    return acceptedOrFinished(services, request, reply, accepted);
  });

  app.post('/api/pdf/merge', async (request) => {
    const principal = principalOf(request);
    const maxFiles = services.jobs.admitMerge(principal);
    const form = await readForm(services, request, { fileField: 'files', urlField: 'urls', maxFiles });
    const { webhookUrl, ...rest } = form.fields;
    if (Object.keys(rest).length) {
      await services.uploads.discard(...form.files);
      throw badRequest(`Unexpected field '${Object.keys(rest)[0]}': merge takes only 'files' (and 'webhookUrl')`);
    }
    return services.jobs.acceptMerge(principal, form.files, true, webhookUrl);
  });

  app.post('/api/batch/convert', async (request) => {
    const principal = principalOf(request);
    const maxFiles = services.batches.admit(principal);
    const form = await readForm(services, request, { fileField: 'files', urlField: 'urls', maxFiles });
    const { to, op, webhookUrl, export: exportField, ...fields } = form.fields;
    return services.batches.accept(principal, {
      uploads: form.files,
      to,
      op,
      fields,
      fieldsAreStrings: true,
      viaApi: true,
      webhookUrl,
      export: exportField,
    });
  });

  app.get<{ Params: { id: string } }>('/api/batch/:id', async (request) =>
    services.batches.status(principalOf(request), request.params.id),
  );

  // Beyond the spec (issue 27): cancel a batch's unfinished jobs.
  app.delete<{ Params: { id: string } }>('/api/batch/:id', async (request) =>
    services.batches.cancel(principalOf(request), request.params.id),
  );

  app.get<{ Params: { id: string } }>('/api/batch/:id/download', async (request, reply) => {
    const { stream, filename } = await services.batches.zip(principalOf(request), request.params.id);
    return reply
      .header('Content-Type', 'application/zip')
      .header('Content-Disposition', contentDisposition(filename))
      .send(stream);
  });

  // Extraction tools: one submit and one poll route per extract plugin (and spec tool), from the registry.
  for (const { tool } of services.capabilities.extractionTools()) {
    app.post(`/api/${tool}`, async (request) => {
      const principal = principalOf(request);
      const maxFiles = services.extractions.admit(principal, tool);
      const form = await readForm(services, request, {
        fileField: 'files',
        urlField: 'urls',
        maxFiles,
        tooMany: () => services.extractions.tooManyFiles(principal, tool),
      });
      const { webhookUrl, ...fields } = form.fields;
      return services.extractions.accept(principal, tool, {
        uploads: form.files,
        fields,
        fieldsAreStrings: true,
        viaApi: true,
        webhookUrl,
      });
    });
    app.get<{ Params: { id: string } }>(`/api/${tool}/:id`, async (request) =>
      services.extractions.poll(principalOf(request), tool, request.params.id),
    );
  }

  app.get<{ Params: { jobId: string } }>('/api/v1/jobs/:jobId', async (request) =>
    services.jobs.status(principalOf(request), request.params.jobId),
  );

  // Beyond the spec (issue 27): cancel a waiting or active job.
  app.delete<{ Params: { jobId: string } }>('/api/v1/jobs/:jobId', async (request) =>
    services.jobs.cancel(principalOf(request), request.params.jobId),
  );

  app.get<{ Params: { token: string } }>(
    '/api/download/:token',
    { config: { auth: 'public' } },
    async (request, reply) => {
      const download = await services.downloads.open(request.params.token);
      return reply
        .header('Content-Type', 'application/octet-stream')
        .header('Content-Length', download.bytes)
        .header('Content-Disposition', contentDisposition(download.filename))
        .header('Cache-Control', 'private, no-store')
        .send(download.stream);
    },
  );

  app.post('/api/v1/signed-url', async (request) => {
    const parsed = signedUrlRequestSchema.safeParse(request.body ?? {});
    if (!parsed.success) throw badRequest(`Invalid ${describeIssue(parsed.error)}`);
    return services.downloads.createSignedUrl(principalOf(request), parsed.data);
  });

  app.get('/api/v1/credits', async (request) => services.credits.balance(principalOf(request).account));

  app.get('/api/v1/history', async (request) => {
    const parsed = historyQuerySchema.safeParse(request.query ?? {});
    if (!parsed.success) throw badRequest(`Invalid ${describeIssue(parsed.error)}`);
    return services.jobs.history(principalOf(request), parsed.data.limit, parsed.data.offset);
  });

  // Beyond the spec: the capability index, straight from the registry (serialised once).
  app.get('/api/v1/formats', async (_request, reply) =>
    reply.type('application/json; charset=utf-8').send(services.capabilities.formatsJson()),
  );

  // Beyond the spec: webhook endpoints.
  await app.register(webhookRoutes, { services });
}
