/** Job: the accepted job and its status, with `job`, `convert`, `mergePdf` and `jobUpdated`. */
import type { JobStatus, ToolReport } from '../../../schema/index.js';
import type { Builder } from './builder.js';
import type { JobView } from './types.js';

/** `queued` is the answer to convert; the others are the states the status endpoint reports. */
const JOB_STATES = {
  queued: 'Accepted (the answer to convert).',
  waiting: 'In the queue.',
  active: 'Running.',
  done: 'Finished: downloadUrl is set.',
  failed: 'Not converted: error says why (the credits are refunded).',
} as const;

export function addJob(builder: Builder) {
  const JobState = builder.enumType('JobState', {
    description: 'Where a job is.',
    values: Object.fromEntries(
      Object.entries(JOB_STATES).map(([state, description]) => [state, { description }]),
    ) as Record<keyof typeof JOB_STATES, { description: string }>,
  });

  const ToolReportRef = builder.objectRef<ToolReport>('ToolReport').implement({
    description:
      'What a detecting op found (blur-faces, redact, remove-watermark). 0 means nothing matched and the output is ' +
      'unchanged.',
    fields: (t) => ({
      op: t.exposeString('op', { description: 'The op that ran.' }),
      detected: t.exposeInt('detected', { description: 'What it found and changed (faces, matches, watermarks).' }),
    }),
  });

  const Job = builder.objectRef<JobView>('Job').implement({
    description: 'A conversion or tool job: the answer to convert (status queued, with its cost) and its later states.',
    fields: (t) => ({
      jobId: t.exposeID('jobId', { description: 'The job.' }),
      status: t.field({ type: JobState, description: 'Where the job is.', resolve: (job) => job.status }),
      progress: t.int({
        nullable: true,
        description: '0-100 while waiting or active.',
        resolve: (job) => ('progress' in job ? job.progress : null),
      }),
      creditCost: t.int({
        nullable: true,
        description: 'Credits charged (on the answer to convert).',
        resolve: (job) => ('creditCost' in job ? job.creditCost : null),
      }),
      creditsRemaining: t.int({
        nullable: true,
        description: 'Credits left this month after this job (on the answer to convert).',
        resolve: (job) => ('creditsRemaining' in job ? job.creditsRemaining : null),
      }),
      downloadUrl: t.string({
        nullable: true,
        description: 'When done: the output, for 15 minutes from completion.',
        resolve: (job) => ('downloadUrl' in job ? job.downloadUrl : null),
      }),
      expiresIn: t.int({
        nullable: true,
        description: 'When done: lifetime of downloadUrl in seconds (900).',
        resolve: (job) => ('expiresIn' in job ? job.expiresIn : null),
      }),
      toolReport: t.field({
        type: ToolReportRef,
        nullable: true,
        description: 'When done, for a detecting op: what it found.',
        resolve: (job) => ('toolReport' in job ? job.toolReport : null),
      }),
      error: t.string({
        nullable: true,
        description: 'When failed: why.',
        resolve: (job) => ('error' in job ? job.error : null),
      }),
      steps: t.field({
        type: 'JSON',
        nullable: true,
        description: 'Pipelines: each step as [{index, to|op|extract, status, progress}].',
        resolve: (job) => ('steps' in job ? job.steps : null),
      }),
      result: t.field({
        type: 'JSON',
        nullable: true,
        description: "Pipelines ending in an extraction step, when done: the tool's row.",
        resolve: (job) => ('result' in job ? job.result : null),
      }),
      export: t.field({
        type: 'JSON',
        nullable: true,
        description: 'Jobs sent with an export: {status, location, etag, error}.',
        resolve: (job) => ('export' in job ? job.export : null),
      }),
    }),
  });

  builder.subscriptionField('jobUpdated', (t) =>
    t.field({
      type: Job,
      nullable: true,
      description: 'The job now, then every change; completes after done or failed.',
      args: { id: t.arg.id({ required: true, description: 'jobId of the convert answer.' }) },
      subscribe: (_root, { id }, { services, principal, signal }) => services.jobs.watch(principal, String(id), signal),
      resolve: (status: JobStatus, { id }) => ({ jobId: String(id), ...status }),
    }),
  );

  return Job;
}
