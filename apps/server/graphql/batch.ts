/** Batches: many files to one format, one job each, one ZIP (POST /api/batch/convert, GET /api/batch/{id}). */
import { batchAcceptedSchema, batchStatusSchema, fileRejectionSchema } from '../../../schema/index.js';
import type { Builder } from './builder.js';
import { addZodObject } from './zod-objects.js';

export function addBatch(builder: Builder) {
  addZodObject(builder, 'FileRejection', fileRejectionSchema, {
    description: 'A file of a batch that was not accepted; the others still run.',
  });
  addZodObject(builder, 'BatchAccepted', batchAcceptedSchema, {
    description:
      'The answer to batchConvert (follow it with `batch(id)`) and to the extraction mutations ' +
      '(follow them with `extraction(tool, id)`).',
    types: { batchId: 'ID', errors: 'FileRejection' },
    // A GraphQL client polls `batch(id)` or `extraction(tool, id)`, not a REST path.
    omit: ['statusUrl'],
  });
  addZodObject(builder, 'BatchStatus', batchStatusSchema, {
    description: 'A batch now: poll until done, then download the ZIP.',
    // The export's state stays one JSON object here, as it was before the wire was typed.
    types: { export: 'JSON' },
  });
}
