/**
 * OpenAPI for issue 27 (beyond the spec): POST /api/v1/pipelines with its curl example, cancel
 * (DELETE on a job and a batch), `Prefer: wait=N`, and the `url`/`urls` and `export` fields of the
 * submits. Every piece is marked `x-beyond-spec: true`.
 */
import type { z } from 'zod';
import { MAX_PIPELINE_STEPS, pipelineRequestSchema, s3ExportSchema } from '../../schema/index.js';
import type { JsonSchema } from './json-schema.js';

const BEYOND = { 'x-beyond-spec': true } as const;

export const URL_FIELD: JsonSchema = {
  type: 'string',
  format: 'uri',
  ...BEYOND,
  description:
    "Instead of 'file': an https URL the server fetches the file from (at most 5 redirects; the plan's size limit; name from Content-Disposition or the path; private addresses only with IMPORT_ALLOW_PRIVATE=1).",
};
export const URLS_FIELD: JsonSchema = {
  type: 'array',
  items: { type: 'string', format: 'uri' },
  ...BEYOND,
  description: "Beside or instead of 'files': URLs to fetch, one per field (repeat it); each counts as one file.",
};
export const EXPORT_FIELD: JsonSchema = {
  type: 'string',
  contentMediaType: 'application/json',
  ...BEYOND,
  description:
    'Also upload the output to S3-compatible storage: {"type":"s3","bucket","key","region","endpoint"?,"accessKeyId","secretAccessKey","sessionToken"?,"forcePathStyle"?}. The credentials serve this job only and are never stored. The job status then carries export {status, location, etag, error}.',
};

/** The same field on a batch: the ZIP goes up once every job has finished. */
export const BATCH_EXPORT_FIELD: JsonSchema = {
  ...EXPORT_FIELD,
  description:
    "Also upload the batch's ZIP to S3-compatible storage once every job has finished (same object as convert's `export`). The credentials serve this batch only and are never stored. The batch status then carries export {status, location, etag, error}.",
};

/** `Prefer: wait=N` on convert and pipelines. */
export const PREFER_WAIT = {
  name: 'Prefer',
  in: 'header' as const,
  required: false,
  schema: { type: 'string', example: 'wait=10' },
  ...BEYOND,
  description:
    'RFC 7240 `wait=N` (N <= 60): a job that finishes within N seconds is answered with the accepted fields plus its final status (downloadUrl, or result), with `Preference-Applied: wait=N`; otherwise the usual accepted answer comes at N seconds.',
};

const CURL = `curl -X POST "$BASE/api/v1/pipelines" -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' -H 'Prefer: wait=30' -d '{
  "input": { "url": "https://example.com/report.docx" },
  "steps": [ { "to": "pdf" }, { "op": "compress-pdf" }, { "extract": "pdf-to-markdown", "pageBreaks": "false" } ]
}'
# then: curl "$BASE/api/v1/jobs/<jobId>" -H "Authorization: Bearer $KEY"   (steps, then result.markdown)`;

type Json = (schemaName: string, description: string) => object;
type Errors = (...statuses: string[]) => object;

export function pipelineSchemas(
  toJson: (schema: z.ZodType, io?: 'input' | 'output') => JsonSchema,
): Record<string, JsonSchema> {
  return {
    PipelineRequest: {
      ...toJson(pipelineRequestSchema, 'input'),
      properties: {
        ...toJson(pipelineRequestSchema, 'input').properties,
        export: { $ref: '#/components/schemas/S3Export' },
      },
    },
    S3Export: toJson(s3ExportSchema, 'input'),
  };
}

export function pipelinePaths(json: Json, errors: Errors) {
  return {
    '/api/v1/pipelines': {
      post: {
        summary: 'Run several steps in one job (pipeline)',
        description:
          `Each step takes the previous output: \`to\` (a conversion), \`op\` (a tool op; \`to\` defaults to the format it gets), or \`extract\` (an extraction tool, last step only: its row becomes the job's \`result\`). Other fields of a step are its options, as on /api/v1/convert. At most ${MAX_PIPELINE_STEPS} steps; the whole chain is checked at submit (a 400 names the step). ` +
          "Each step is charged at acceptance by the credit table on the first input's size; when a step fails (or the job is cancelled), the steps that did not finish are refunded. Intermediate files stay in the job's work dir and go when it ends. " +
          `Send JSON with input.url, or multipart with 'file' and a 'pipeline' field holding the same JSON without input.\n\n\`\`\`sh\n${CURL}\n\`\`\``,
        tags: ['Jobs'],
        ...BEYOND,
        parameters: [PREFER_WAIT],
        requestBody: {
          required: true,
          content: {
            'application/json': { schema: { $ref: '#/components/schemas/PipelineRequest' } },
            'multipart/form-data': {
              schema: {
                type: 'object',
                required: ['file', 'pipeline'],
                properties: {
                  file: { type: 'string', contentMediaType: 'application/octet-stream' },
                  pipeline: {
                    type: 'string',
                    contentMediaType: 'application/json',
                    description: 'The PipelineRequest without input.',
                  },
                },
              },
            },
          },
        },
        responses: {
          '200': json(
            'AcceptedJob',
            'Accepted (with Prefer: wait=N, possibly finished: then also status, steps, downloadUrl or result).',
          ),
          ...errors('400', '401', '402', '403', '413', '429'),
        },
      },
    },
  };
}

/** DELETE /api/v1/jobs/{jobId}. */
export function cancelJobOperation(json: Json, errors: Errors) {
  return {
    summary: 'Cancel a job',
    tags: ['Jobs'],
    ...BEYOND,
    description:
      'A waiting or active job ends failed with error "Cancelled" and its credits back; its run is killed with its engines. Idempotent. A job that finished otherwise: 409.',
    parameters: [{ name: 'jobId', in: 'path' as const, required: true, schema: { type: 'string' } }],
    responses: {
      '200': json('JobStatus', 'The cancelled job.'),
      '409': { $ref: '#/components/responses/409' },
      ...errors('401', '404', '429'),
    },
  };
}

/** DELETE /api/batch/{id}. */
export function cancelBatchOperation(json: Json, errors: Errors) {
  return {
    summary: "Cancel a batch's unfinished jobs",
    tags: ['Batches'],
    ...BEYOND,
    description:
      'Every waiting or active job of the batch is cancelled and refunded; finished ones keep their outputs. Idempotent.',
    parameters: [{ name: 'id', in: 'path' as const, required: true, schema: { type: 'string' } }],
    responses: { '200': json('BatchStatus', 'The batch.'), ...errors('401', '403', '404', '429') },
  };
}
