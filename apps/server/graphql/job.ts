/**
 * Job: the accepted job and its status, with `job`, `convert`, `mergePdf` and `jobUpdated`. One
 * type for both REST answers, made from their zod (schema/wire.ts): the answer to convert
 * (acceptedJobSchema, status queued) and the job status (jobStatusSchema).
 */
import { z } from 'zod';
import { acceptedJobSchema, jobStateSchema, jobStatusSchema, toolReportSchema } from '../../../schema/index.js';
import type { JobStatus } from '../../../schema/index.js';
import type { Builder } from './builder.js';
import type { JobView } from './types.js';
import { addZodEnum, addZodObject } from './zod-objects.js';

/** Where a job is: queued (the answer to convert), then the states the status endpoint reports. */
const jobViewStateSchema = z.enum(['queued', ...jobStateSchema.options]);

/**
 * The Job type's fields: the job status's, with the answer to convert's (statusUrl aside: a
 * GraphQL client asks `job(id)` or subscribes to `jobUpdated`).
 */
const jobViewSchema = z.object({
  jobId: acceptedJobSchema.shape.jobId,
  ...jobStatusSchema.shape,
  status: jobViewStateSchema.meta({ description: 'Where the job is.' }),
  creditCost: acceptedJobSchema.shape.creditCost.optional(),
  creditsRemaining: acceptedJobSchema.shape.creditsRemaining.optional(),
});

export function addJob(builder: Builder) {
  addZodEnum(builder, 'JobState', jobViewStateSchema, {
    description: 'Where a job is.',
    values: {
      queued: 'Accepted (the answer to convert).',
      waiting: 'In the queue.',
      active: 'Running.',
      done: 'Finished: downloadUrl is set.',
      failed: 'Not converted: error says why (the credits are refunded).',
    },
  });

  addZodObject(builder, 'ToolReport', toolReportSchema, {
    description:
      'What a detecting op found (blur-faces, redact, remove-watermark). 0 means nothing matched and the output is ' +
      'unchanged.',
  });

  const Job = addZodObject<typeof jobViewSchema.shape, JobView>(builder, 'Job', jobViewSchema, {
    description: 'A conversion or tool job: the answer to convert (status queued, with its cost) and its later states.',
    types: { jobId: 'ID', status: 'JobState', toolReport: 'ToolReport', steps: 'JSON', result: 'JSON', export: 'JSON' },
    // The two fields only the answer to convert carries say so: the type is both answers.
    descriptions: {
      creditCost: 'Credits charged (on the answer to convert).',
      creditsRemaining: 'Credits left this month after this job (on the answer to convert).',
    },
  });

  builder.subscriptionField('jobUpdated', (t) =>
    t.field({
      type: Job,
      nullable: true,
      description: 'The job now, then every change; completes after done or failed.',
      args: { id: t.arg.id({ required: true, description: 'jobId of the convert answer.' }) },
      subscribe: (_root, { id }, { services, principal, signal }) => services.jobs.watch(principal, String(id), signal),
      resolve: (status: JobStatus, { id }): JobView => ({ jobId: String(id), ...status }),
    }),
  );

  return Job;
}
