/** Batches: many files to one format, one job each, one ZIP (POST /api/batch/convert, GET /api/batch/{id}). */
import type { z } from 'zod';
import type { batchAcceptedSchema, batchStatusSchema } from '../../../schema/index.js';
import type { Builder } from './builder.js';

export type BatchAccepted = Omit<z.infer<typeof batchAcceptedSchema>, 'statusUrl'>;
type BatchStatus = z.infer<typeof batchStatusSchema>;
type FileRejection = BatchAccepted['errors'][number];

export function addBatch(builder: Builder) {
  const FileRejectionRef = builder.objectRef<FileRejection>('FileRejection').implement({
    description: 'A file of a batch that was not accepted; the others still run.',
    fields: (t) => ({
      filename: t.exposeString('filename', { description: 'The file as uploaded.' }),
      error: t.exposeString('error', { description: 'Why it was not accepted.' }),
    }),
  });

  const BatchAcceptedRef = builder.objectRef<BatchAccepted>('BatchAccepted').implement({
    description:
      'The answer to batchConvert (follow it with `batch(id)`) and to the extraction mutations (follow them with ' +
      '`extraction(tool, id)`).',
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

  builder.objectRef<BatchStatus>('BatchStatus').implement({
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

  return BatchAcceptedRef;
}
