/** createPipeline (issue 27): POST /api/v1/pipelines over GraphQL, answered with the Job type. */
import type { ObjectRef } from '@pothos/core';
import type { Builder, SchemaTypes } from './builder.js';
import type { JobView } from './types.js';
import { stageUpload } from './uploads.js';

export function addPipeline(
  builder: Builder,
  Job: ObjectRef<PothosSchemaTypes.ExtendDefaultTypes<SchemaTypes>, JobView>,
) {
  builder.mutationField('createPipeline', (t) =>
    t.field({
      type: Job,
      nullable: true,
      description:
        'Run several steps in one job, each on the previous output (same rules as POST /api/v1/pipelines): `pipeline` is {input?: {url}, steps: [{to|op|extract, ...options}], export?}; send the input as `file` or input.url. Poll it with `job`: steps, then downloadUrl or result.',
      args: {
        file: t.arg({ type: 'Upload', description: 'The input file (or give pipeline.input.url).' }),
        pipeline: t.arg({
          type: 'JSON',
          required: true,
          description:
            'The pipeline as on POST /api/v1/pipelines: {input?: {url}, steps: [...], export?}; with `file`, without input.',
        }),
      },
      resolve: async (_root, { file, pipeline }, { services, principal }) => {
        const request = services.pipelines.parse(pipeline);
        const upload = file ? await stageUpload(services, principal, file) : undefined;
        const { statusUrl: _statusUrl, ...accepted } = await services.pipelines.submit(
          principal,
          request,
          upload,
          !principal.session,
        );
        return accepted;
      },
    }),
  );
}
