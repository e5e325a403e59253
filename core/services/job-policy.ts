/**
 * Rules about a job that several services share: which options are secret (never stored, never
 * logged, held in this process's memory only) and which jobs are free trials.
 */
import type { z } from 'zod';
import { isSecretField, type Plugin } from '../contract/index.js';
import type { FailureRefund, JobRecord } from '../store/types.js';

export function secretFieldsOf(plugin: Plugin): string[] {
  return Object.entries(plugin.options.shape)
    .filter(([, s]) => isSecretField(s as z.ZodType))
    .map(([k]) => k);
}

/**
 * Secret fields a job of this plugin cannot run without (protect-pdf's password). An optional one
 * (office-convert's password for encrypted documents) makes a job secret only when it is given.
 */
export function requiredSecretFieldsOf(plugin: Plugin): string[] {
  return secretFieldsOf(plugin).filter(
    (field) => !(plugin.options.shape[field] as z.ZodType).safeParse(undefined).success,
  );
}

/** Stored beside a job's options when a secret was given with it (the secret itself never is). */
export const SECRET_GIVEN = '_secretGiven';

/** Options split into what may be stored and what must stay in memory. */
export function splitSecrets(plugin: Plugin, options: Record<string, unknown>) {
  const secretFields = new Set(secretFieldsOf(plugin));
  const stored: Record<string, unknown> = {};
  const secret: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options)) (secretFields.has(key) ? secret : stored)[key] = value;
  if (Object.keys(secret).length) stored[SECRET_GIVEN] = true;
  return { stored, secret };
}

/** Whether a job of `plugin` with these stored options runs with a secret (held in one process's memory). */
export function takesSecret(plugin: Plugin, stored: Record<string, unknown>): boolean {
  return requiredSecretFieldsOf(plugin).length > 0 || stored[SECRET_GIVEN] === true;
}

/** Stored options as the plugin takes them (without the marker). */
export function withoutMarker(stored: Record<string, unknown>): Record<string, unknown> {
  const { [SECRET_GIVEN]: _marker, ...options } = stored;
  return options;
}

/**
 * Secret options (passwords) live only in this process's memory until the job runs: never in
 * the store, the queue or a log (such jobs run here: see InProcessJobs). A job whose secret was
 * lost (restart) fails cleanly with a refund and asks the client to submit again.
 */
export class SecretVault {
  private readonly secrets = new Map<string, Record<string, unknown>>();
  put(jobId: string, values: Record<string, unknown>): void {
    if (Object.keys(values).length) this.secrets.set(jobId, values);
  }
  take(jobId: string): Record<string, unknown> | undefined {
    const values = this.secrets.get(jobId);
    this.secrets.delete(jobId);
    return values;
  }
}

/** A trial job is the only kind that costs nothing: every charged job costs at least 1 credit. */
export function isTrialJob(job: JobRecord): boolean {
  return job.kind === 'extract' && job.creditCost === 0;
}

/**
 * What a failed or cancelled job gives back: all it cost, or for a pipeline the credits of the
 * steps that did not finish (the steps that ran keep theirs).
 */
export function refundableCost(job: JobRecord): number {
  if (!job.pipeline) return job.creditCost;
  return job.pipeline.steps.filter((step) => step.status !== 'done').reduce((sum, step) => sum + step.creditCost, 0);
}

/** The error of a job made but never queued (the queue or the store did not answer): it fails with a refund. */
export const NOT_QUEUED = 'The job could not be queued; credits were refunded';

/**
 * What a failed or cancelled job gives back, in the same store write as its failure (`jobs.fail`): a free try its
 * trial, a charged job its refundable credits to the period they were charged in.
 */
export function refundOf(job: JobRecord): FailureRefund {
  if (isTrialJob(job)) return { trialOf: job.op ?? job.pluginId };
  const credits = refundableCost(job);
  return credits > 0 ? { credits, period: job.creditPeriod } : null;
}
