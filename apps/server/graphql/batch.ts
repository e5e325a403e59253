/** Batches: many files to one format, one job each, one ZIP (POST /api/batch/convert, GET /api/batch/{id}). */
import type { z } from 'zod';
import type { batchAcceptedSchema, batchStatusSchema } from '../../../schema/index.js';
import type { Builder } from './builder.js';
import { oneOfOptions, withQuality } from '../operations/options.js';
import { cancelBatchOperation, getBatchOperation, submitBatch } from '../operations/table.js';
import type { OptionInputs } from './option-inputs.js';
import { stageUploads } from './uploads.js';
import { WEBHOOK_URL_DESCRIPTION } from './webhooks.js';
import { runOperation } from '../operations/operation.js';

export type BatchAccepted = Omit<z.infer<typeof batchAcceptedSchema>, 'statusUrl'>;
type BatchStatus = z.infer<typeof batchStatusSchema>;
type FileRejection = BatchAccepted['errors'][number];

export function addBatch(builder: Builder, optionInputs: OptionInputs) {
  const FileRejectionRef = builder.objectRef<FileRejection>('FileRejection').implement({
    description: 'A file of a batch that was not accepted; the others still run.',
    fields: (t) => ({
      filename: t.exposeString('filename', { description: 'The file as uploaded.' }),
      error: t.exposeString('error', { description: 'Why it was not accepted.' }),
    }),
  });

  const BatchAcceptedRef = builder.objectRef<BatchAccepted>('BatchAccepted').implement({
    description:
      'The answer to batchConvert (follow it with `batch(id)`) and to the extraction mutations (follow them with `extraction(tool, id)`).',
    fields: (t) => ({
      batchId: t.exposeID('batchId', { description: 'The batch, to poll.' }),
      total: t.exposeInt('total', { description: 'Files accepted (one job each, each charged).' }),
      errors: t.field({
        type: [FileRejectionRef],
        description: 'The files not accepted (not charged).',
        resolve: (batch) => batch.errors,
      }),
    }),
  });

  const BatchStatusRef = builder.objectRef<BatchStatus>('BatchStatus').implement({
    description: 'A batch now: poll until done, then download the ZIP.',
    fields: (t) => ({
      total: t.exposeInt('total', { description: 'Files in the batch.' }),
      completed: t.exposeInt('completed', { description: 'Jobs done or failed.' }),
      done: t.exposeBoolean('done', { description: 'Every job done or failed.' }),
      downloadUrl: t.exposeString('downloadUrl', {
        nullable: true,
        description: 'When done: the ZIP of the outputs (GET it with the API key).',
      }),
      export: t.field({
        type: 'JSON',
        nullable: true,
        description: 'Batches sent with an export: the upload of the ZIP, {status, location, etag, error}.',
        resolve: (batch) => batch.export ?? null,
      }),
    }),
  });

  builder.mutationField('batchConvert', (t) =>
    t.field({
      type: BatchAcceptedRef,
      nullable: true,
      description:
        "Convert many files to one format (Pro and up; same rules as POST /api/batch/convert): at most the plan's batch size, charged per file.",
      args: {
        files: t.arg({ type: ['Upload'], required: true, description: 'The files, one job each.' }),
        to: t.arg.string({ required: true, description: 'Output format for every file (lower-case extension).' }),
        op: t.arg.string({ description: 'Tool op for every file; omit for a plain conversion.' }),
        options: t.arg({
          type: 'ConvertOptions' as never,
          description:
            'The options for every file, as convert takes them, e.g. {rotatePdf: {angle: 90}} with op: "rotate-pdf".',
        }),
        quality: t.arg.int({
          description: 'Output quality where the conversion or op takes one (or `quality` in options).',
        }),
        webhookUrl: t.arg.string({ description: WEBHOOK_URL_DESCRIPTION }),
        export: t.arg({
          type: 'JSON',
          description:
            'Upload the ZIP to S3-compatible storage once every job has finished: {type: "s3", bucket, key, region, endpoint?, accessKeyId, secretAccessKey, sessionToken?, forcePathStyle?}; the credentials are never stored.',
        }),
      },
      resolve: async (
        _root,
        { files, to, op, options, quality, webhookUrl, export: exportArg },
        { services, principal },
      ) => {
        const maxFiles = services.batches.admit(principal);
        const decoded = withQuality(
          oneOfOptions(options as Record<string, unknown> | null | undefined, optionInputs.convertFields),
          quality,
        );
        const uploads = await stageUploads(services, principal, files, maxFiles);
        const { statusUrl: _statusUrl, ...accepted } = await submitBatch(services, principal, {
          files: uploads,
          to,
          op: op ?? undefined,
          options: decoded,
          viaApi: !principal.session,
          webhookUrl: webhookUrl ?? undefined,
          export: exportArg ?? undefined,
        });
        return accepted;
      },
    }),
  );

  builder.queryField('batch', (t) =>
    t.field({
      type: BatchStatusRef,
      nullable: true,
      description: "A batch of the caller (NOT_FOUND when unknown, FORBIDDEN for another key holder's batch, as REST).",
      args: { id: t.arg.id({ required: true, description: 'batchId of the batchConvert answer.' }) },
      resolve: (_root, { id }, ctx) => runOperation(getBatchOperation, ctx, { id: String(id) }),
    }),
  );

  builder.mutationField('cancelBatch', (t) =>
    t.field({
      type: BatchStatusRef,
      nullable: true,
      description: "Cancel a batch's unfinished jobs (as DELETE /api/batch/{id}); finished ones keep their outputs.",
      args: { id: t.arg.id({ required: true, description: 'batchId of the batchConvert answer.' }) },
      resolve: (_root, { id }, ctx) => runOperation(cancelBatchOperation, ctx, { id: String(id) }),
    }),
  );

  return BatchAcceptedRef;
}
