import { z } from 'zod';

/** Pipelines: one job, several steps, each taking the previous step's output. */
export const MAX_PIPELINE_STEPS = 10;

/**
 * One step: `to` (a conversion; with `op`, a tool op whose `to` defaults to the format it gets),
 * or `extract` (an extraction tool, last step only). Every other field is an option of that
 * step, as /api/v1/convert (or the tool's endpoint) takes it.
 */
export const pipelineStepSchema = z
  .object({
    to: z.string().min(1).optional().meta({ description: 'Output format of the step (lower-case extension).' }),
    op: z.string().min(1).optional().meta({ description: 'Tool op of the step; `to` defaults to the format it gets.' }),
    extract: z
      .string()
      .min(1)
      .optional()
      .meta({ description: "Extraction tool (last step only): its row becomes the job's `result`." }),
  })
  .catchall(z.unknown())
  .refine((step) => (step.extract === undefined) !== (step.to === undefined && step.op === undefined), {
    message: "each step needs 'to' or 'op' (a conversion or tool op), or 'extract' (an extraction tool), not both",
  });
export type PipelineStep = z.infer<typeof pipelineStepSchema>;

export const pipelineRequestSchema = z.strictObject({
  /** JSON requests: where the input comes from. Multipart requests send the file as `file` instead. */
  input: z
    .strictObject({ url: z.string().min(1).meta({ description: 'An https URL the server fetches the input from.' }) })
    .optional(),
  steps: z.array(pipelineStepSchema).min(1).max(MAX_PIPELINE_STEPS, `at most ${MAX_PIPELINE_STEPS} steps`),
  /** Where the final output goes besides the download link: { type: 's3', ... } (checked by the export service). */
  export: z.unknown().optional(),
  /**
   * Beyond the spec, as on /api/v1/convert: where to push job.done / job.failed (signed with the account's default
   * secret).
   */
  webhookUrl: z.string().min(1).optional(),
});
export type PipelineRequest = z.infer<typeof pipelineRequestSchema>;
