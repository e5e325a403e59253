/**
 * Pipelines: one job whose steps run in order, each on the previous step's output
 * (POST /api/v1/pipelines, GraphQL createPipeline, tRPC pipelines.create).
 *
 * The whole chain is checked at submit, as /api/v1/convert checks one step: formats connect, ops
 * exist, options are valid, plan gates pass; a chain that cannot run is a 400 naming the step.
 * Credits: each step is charged at acceptance by the credit table on the first input's size (its
 * class is the step's input format); when a step fails or the job is cancelled, the steps that
 * did not finish are refunded (job-policy.ts: refundableCost).
 */
import type { z } from 'zod';
import {
  FORMATS,
  MAX_PIPELINE_STEPS,
  creditCost,
  pipelineRequestSchema,
  type AcceptedJob,
  type FormatId,
  type PipelineRequest,
  type PipelineStep,
} from '../../schema/index.js';
import type { Plugin } from '../contract/index.js';
import { describeIssue, parseOptions } from '../contract/options.js';
import type { Registry } from '../registry/index.js';
import type { PipelineStepRecord } from '../store/types.js';
import type { Principal } from './accounts.js';
import { ServiceError, badRequest, jsonValue } from './errors.js';
import { requiredSecretFieldsOf, secretFieldsOf, splitSecrets } from './job-policy.js';
import type { ExportService } from './exports.js';
import type { JobService } from './jobs.js';
import { requireFeature, requirePlan } from './plan-gates.js';
import { parseOp, parseTarget } from './targets.js';
import type { StagedUpload, UploadService } from './uploads.js';

/** The op every pipeline job carries (history: "pipeline (DOCX)"). */
export const PIPELINE_OP = 'pipeline';

const upper = (format: FormatId) => FORMATS[format].extension.toUpperCase();

function listFormats(formats: readonly FormatId[]): string {
  const names = [...new Set(formats.map(upper))];
  return names.length > 1 ? `${names.slice(0, -1).join(', ')} or ${names.at(-1)}` : (names[0] ?? 'nothing');
}

/** A step resolved at submit: its plugin, its stored record, and its secret options (last step only). */
interface PlannedStep {
  plugin: Plugin;
  record: PipelineStepRecord;
  secret: Record<string, unknown>;
}

export class PipelineService {
  constructor(
    private readonly registry: Registry,
    private readonly uploads: UploadService,
    private readonly jobs: JobService,
    private readonly exports: ExportService,
  ) {}

  /**
   * Every surface's pipeline submit: the input is the uploaded file, or `input.url` (checked now,
   * fetched by the job's runner); the export and webhookUrl (if any) are checked before anything is
   * charged; the export starts once the job is accepted.
   */
  async submit(
    principal: Principal,
    request: PipelineRequest,
    upload: StagedUpload | undefined,
    viaApi: boolean,
  ): Promise<AcceptedJob> {
    try {
      if (upload && request.input) throw badRequest('Send either a file or input.url, not both');
      if (!upload && !request.input) {
        throw badRequest(
          "Missing input: give input.url (JSON), or send the file as 'file' with the pipeline in a 'pipeline' field " +
            '(multipart)',
        );
      }
      const target = request.export === undefined ? undefined : await this.exports.check(request.export);
      const webhookUrl = await this.jobs.checkWebhook(principal, request.webhookUrl);
      // A URL input is checked now (HEAD) and fetched by the job's runner.
      const staged = upload ?? (await this.uploads.importOne(principal, request.input!.url));
      const accepted = await this.accept(principal, request, staged, viaApi, webhookUrl);
      if (target) await this.exports.start(accepted.jobId, target);
      return accepted;
    } catch (err) {
      if (upload) await this.uploads.discard(upload);
      throw err;
    }
  }

  /** The request as JSON (the body, or the multipart `pipeline` field); 400 naming the first problem. */
  parse(body: unknown): PipelineRequest {
    const value = jsonValue(body, '\'pipeline\' must be a JSON object: {"steps": [...]}');
    const parsed = pipelineRequestSchema.safeParse(value ?? {});
    if (!parsed.success) throw badRequest(`Invalid pipeline: ${describeIssue(parsed.error as z.ZodError)}`);
    return parsed.data;
  }

  /** Validate the chain on the staged input, charge every step, and queue the job. The upload is consumed. */
  async accept(
    principal: Principal,
    request: PipelineRequest,
    upload: StagedUpload,
    viaApi: boolean,
    webhookUrl?: string,
  ): Promise<AcceptedJob> {
    try {
      if (request.steps.length > MAX_PIPELINE_STEPS)
        throw badRequest(`A pipeline has at most ${MAX_PIPELINE_STEPS} steps`);
      const inputFormat = await this.uploads.identify(upload);
      const planned = this.plan(principal, inputFormat, upload.bytes, request.steps);
      const last = planned.at(-1)!.record;
      return await this.jobs.queue(principal, {
        plugin: planned[0]!.plugin,
        kind: 'convert',
        op: PIPELINE_OP,
        inputFormat,
        target: last.target,
        options: {},
        files: [{ upload, format: inputFormat }],
        cost: planned.reduce((sum, step) => sum + step.record.creditCost, 0),
        viaApi,
        webhookUrl,
        pipeline: { steps: planned.map((step) => step.record) },
        secrets: planned.at(-1)!.secret,
      });
    } catch (err) {
      await this.uploads.discard(upload);
      throw err;
    }
  }

  /** Every step resolved and checked in order; the first that cannot run is a 400 (or 403) naming it. */
  private plan(
    principal: Principal,
    inputFormat: FormatId,
    bytes: number,
    steps: readonly PipelineStep[],
  ): PlannedStep[] {
    let format = inputFormat;
    return steps.map((step, index) => {
      const source = index === 0 ? 'the input' : `step ${index - 1}`;
      try {
        const planned = this.planStep(principal, step, format, index === steps.length - 1, source, bytes);
        format = planned.record.target;
        return planned;
      } catch (err) {
        if (err instanceof ServiceError)
          throw new ServiceError(err.code, `steps[${index}]: ${err.message}`, err.detail);
        throw err;
      }
    });
  }

  private planStep(
    principal: Principal,
    step: PipelineStep,
    format: FormatId,
    isLast: boolean,
    source: string,
    bytes: number,
  ): PlannedStep {
    const { to, op, extract, ...fields } = step;
    let plugin: Plugin;
    let target: FormatId;
    let label: Pick<PipelineStepRecord, 'to' | 'op' | 'extract'>;
    if (extract !== undefined) {
      if (!isLast) throw badRequest(`an extraction step (${extract}) must be the last step: its output is JSON`);
      const resolution = this.registry.extractor(extract);
      if (!resolution.ok) throw badRequest(resolution.error);
      plugin = resolution.plugin;
      if (!plugin.inputs.includes(format))
        throw badRequest(`${extract} takes ${listFormats(plugin.inputs)}, ${source} gives ${upper(format)}`);
      requireFeature(principal.account, 'extraction');
      requirePlan(principal.account, plugin.plan, extract);
      target = 'json';
      label = { extract };
    } else {
      const opName = parseOp(op);
      // An op step without `to` keeps its input's format.
      const resolution = this.registry.resolve({
        from: format,
        target: parseTarget(to ?? (opName ? format : undefined)),
        op: opName,
      });
      if (!resolution.ok) {
        const takers = opName ? this.registry.plugins.filter((p) => p.op === opName) : [];
        if (takers.length && !takers.some((p) => p.inputs.includes(format))) {
          throw badRequest(
            `${opName} takes ${listFormats(takers.flatMap((p) => p.inputs))}, ${source} gives ${upper(format)}`,
          );
        }
        throw badRequest(resolution.error);
      }
      ({ plugin, target } = resolution);
      if ((plugin.limits.inputs?.min ?? 1) > 1)
        throw badRequest(`${plugin.title} takes several files: it cannot be a pipeline step`);
      if (opName) requireFeature(principal.account, 'tool-ops');
      requirePlan(principal.account, plugin.plan, opName ? `Op '${opName}'` : plugin.title);
      label = { ...(to !== undefined ? { to } : {}), ...(opName ? { op: opName } : {}) };
    }
    // A password lives in one process's memory only (job-policy.ts), never in the stored steps: it
    // goes to the last step alone, which runs in the accepting process like a job of its own would.
    const givesSecret = secretFieldsOf(plugin).some((field) => fields[field] !== undefined && fields[field] !== '');
    if ((requiredSecretFieldsOf(plugin).length || givesSecret) && !isLast)
      throw badRequest(`${plugin.title} takes a password: it can only be the last step of a pipeline`);
    const operation = extract ?? (op ? `op '${op}'` : `${format} -> ${to}`);
    const parsed = parseOptions(plugin.options, fields, { fromStrings: true, operation });
    if (!parsed.ok) throw badRequest(parsed.error);
    const { stored, secret } = splitSecrets(plugin, parsed.value);
    return {
      plugin,
      secret,
      record: {
        ...label,
        pluginId: plugin.id,
        kind: extract !== undefined ? 'extract' : op ? 'tool' : 'convert',
        options: stored,
        inputFormat: format,
        target,
        creditCost: creditCost({ format, bytes }, plugin.creditWeight),
        status: 'waiting',
        progress: 0,
      },
    };
  }
}
