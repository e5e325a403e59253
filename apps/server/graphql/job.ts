/** Job: the accepted job and its status, with `job`, `convert`, `mergePdf` and `jobUpdated`. */
import type { JobStatus, ToolReport } from '../../../schema/index.js';
import { badRequest } from '../../../core/services/errors.js';
import type { Builder } from './builder.js';
import type { JobView } from './types.js';
import { oneOfOptions } from '../operations/options.js';
import { cancelJobOperation, getJobOperation, submitConvert, submitMerge } from '../operations/table.js';
import type { OptionInputs } from './option-inputs.js';
import { stageUpload, stageUploads } from './uploads.js';
import { WEBHOOK_URL_DESCRIPTION } from './webhooks.js';
import { addPipeline } from './pipeline.js';
import { runOperation } from '../operations/operation.js';

/** `queued` is the answer to convert; the others are the states the status endpoint reports. */
const JOB_STATES = {
  queued: 'Accepted (the answer to convert).',
  waiting: 'In the queue.',
  active: 'Running.',
  done: 'Finished: downloadUrl is set.',
  failed: 'Not converted: error says why (the credits are refunded).',
} as const;

export function addJob(builder: Builder, optionInputs: OptionInputs) {
  const JobState = builder.enumType('JobState', {
    description: 'Where a job is.',
    values: Object.fromEntries(
      Object.entries(JOB_STATES).map(([state, description]) => [state, { description }]),
    ) as Record<keyof typeof JOB_STATES, { description: string }>,
  });

  const ToolReportRef = builder.objectRef<ToolReport>('ToolReport').implement({
    description:
      'What a detecting op found (blur-faces, redact, remove-watermark). 0 means nothing matched and the output is unchanged.',
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

  builder.queryField('job', (t) =>
    t.field({
      type: Job,
      nullable: true,
      description: "A job of the caller (NOT_FOUND for an unknown job or another key holder's job).",
      args: { id: t.arg.id({ required: true, description: 'jobId of the convert answer.' }) },
      resolve: async (_root, { id }, ctx) => ({
        jobId: String(id),
        ...(await runOperation(getJobOperation, ctx, { jobId: String(id) })),
      }),
    }),
  );

  builder.mutationField('convert', (t) =>
    t.field({
      type: Job,
      nullable: true,
      description:
        'Convert one file, or run one tool op on it (same rules as POST /api/v1/convert). See `formats` for ops and their options.',
      args: {
        file: t.arg({ type: 'Upload', description: 'The file; or give `url` instead.' }),
        url: t.arg.string({
          description:
            'Instead of `file`: an https URL the server fetches the file from, as `url` on POST /api/v1/convert.',
        }),
        to: t.arg.string({
          required: true,
          description: 'Output format (lower-case extension); for an in-place op, the input format.',
        }),
        op: t.arg.string({ description: 'Tool op; omit for a plain conversion.' }),
        options: t.arg({
          type: 'ConvertOptions' as never,
          description:
            'The options, under the field of the plugin that runs the conversion or op, e.g. {imageCompress: {quality: 60}} with op: "compress".',
        }),
        webhookUrl: t.arg.string({ description: WEBHOOK_URL_DESCRIPTION }),
      },
      resolve: async (_root, { file, url, to, op, options, webhookUrl }, { services, principal }) => {
        const decoded = oneOfOptions(options as Record<string, unknown> | null | undefined, optionInputs.convertFields);
        if (!file === !url) throw badRequest("Send exactly one of 'file' and 'url'");
        const upload = file
          ? await stageUpload(services, principal, file)
          : await services.uploads.importOne(principal, url!);
        const { statusUrl: _statusUrl, ...accepted } = await submitConvert(services, principal, {
          files: [upload],
          to,
          op: op ?? undefined,
          options: decoded,
          viaApi: !principal.session,
          webhookUrl: webhookUrl ?? undefined,
        });
        return accepted;
      },
    }),
  );

  addPipeline(builder, Job);

  builder.mutationField('cancelJob', (t) =>
    t.field({
      type: Job,
      nullable: true,
      description:
        'Cancel a waiting or active job (as DELETE /api/v1/jobs/{id}): it ends failed "Cancelled" with its credits back. Idempotent; CONFLICT for a job that finished otherwise.',
      args: { id: t.arg.id({ required: true, description: 'jobId of the convert or createPipeline answer.' }) },
      resolve: async (_root, { id }, ctx) => ({
        jobId: String(id),
        ...(await runOperation(cancelJobOperation, ctx, { jobId: String(id) })),
      }),
    }),
  );

  builder.mutationField('mergePdf', (t) =>
    t.field({
      type: Job,
      nullable: true,
      description:
        'Merge two or more PDFs into one, in the order sent (Pro and up; same rules and limits as POST /api/pdf/merge). Charged by total size.',
      args: {
        files: t.arg({ type: ['Upload'], required: true, description: 'The PDFs, in order.' }),
        webhookUrl: t.arg.string({ description: WEBHOOK_URL_DESCRIPTION }),
      },
      resolve: async (_root, { files, webhookUrl }, { services, principal }) => {
        const maxFiles = services.jobs.admitMerge(principal);
        const uploads = await stageUploads(services, principal, files, maxFiles);
        const { statusUrl: _statusUrl, ...accepted } = await submitMerge(services, principal, {
          files: uploads,
          viaApi: !principal.session,
          webhookUrl: webhookUrl ?? undefined,
        });
        return accepted;
      },
    }),
  );

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
