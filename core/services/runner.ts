/**
 * Runs one queued job: waiting -> active -> done | failed. Materialises inputs into a private
 * work dir, has the plugin run in a sandbox process (never on this thread) under the run's
 * deadline and memory cap, stores the output, mints the 15-minute download token, and refunds on
 * failure. Safe to call again for the same job after a crash: it starts over from the inputs.
 */
import { mkdir, readdir, rm, rmdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { creditCost, isFormatId, type FormatId } from '../../schema/index.js';
import {
  DEFAULT_MEMORY_MB,
  PluginError,
  isFileResult,
  type Logger,
  type Plugin,
  type PluginInput,
  type RunResult,
} from '../contract/index.js';
import type { BlobStore } from '../blobs/types.js';
import { withoutServerPaths } from '../engines/common.js';
import { EngineError } from '../engines/process.js';
import type { SandboxHooks, SandboxRun } from '../engines/execution/sandbox/pool.js';
import type { JobRunnerPort, RunSignals } from '../queue/types.js';
import type { Registry } from '../registry/index.js';
import type { JobRecord, JobsStore, PipelineRecord, PipelineStepRecord, StoredFile } from '../store/types.js';
import { recordJobFinished, recordJobWait } from '../telemetry/metrics.js';
import { activeSpan, recordSpan, withSpan } from '../telemetry/tracing.js';
import type { Clock } from './clock.js';
import type { CreditService } from './credits.js';
import type { DownloadLinks } from './download-links.js';
import { ServiceError } from './errors.js';
import type { AcceptedMeasures } from './accepted-measures.js';
import { isTrialJob, takesSecret, withoutMarker, type SecretVault } from './job-policy.js';
import { backendUnavailable, storageFull } from './unavailable.js';
import { removeFolder } from './folders.js';
import { outputFilename } from './uploads.js';
import { checkWork, measureWork, runTimeoutMs, workForDeadline } from './work-limits.js';

export interface RunnerConfig {
  workRoot: string;
  /** How long outputs live after completion (spec: deleted within 1 hour). */
  outputRetentionMs: number;
  /** A job that has crashed its worker this many times is failed instead of retried. */
  maxAttempts: number;
}

const PROGRESS_WRITE_INTERVAL_MS = 500;
const CANCELLED_DURING_IMPORT = 'The job was cancelled while its URL import was fetched';
/** How often a run checks whether its job was cancelled (by a request another process served). */
const CANCEL_CHECK_MS = 1000;
/** Past its plugin's timeout plus this, an in-process job cannot still be running anywhere. */
const ABANDONED_MARGIN_MS = 60_000;

/** Told when a job has finished, done or failed (webhooks); never throws. */
export interface JobFinishedPort {
  jobFinished(jobId: string): Promise<void>;
}

/** Fetches a job's pending URL import (UploadService.fetchInput); a ServiceError's message is safe to show. */
export interface InputImports {
  fetchInput(file: StoredFile, signal?: AbortSignal): Promise<StoredFile>;
}

/** Runs a plugin away from this thread, under the run's deadline and memory cap (the sandbox pool). */
export interface PluginExecutor {
  run(run: SandboxRun, hooks: SandboxHooks): Promise<RunResult>;
}

export class JobRunner implements JobRunnerPort {
  /** This process's runs (one entry each: a job may have two here, see execute): a cancel stops them at once. */
  private readonly running = new Set<{ jobId: string; cancelled: AbortController }>();

  private readonly jobsStore: JobsStore;

  constructor(
    ports: { jobs: JobsStore },
    private readonly blobs: BlobStore,
    private readonly registry: Registry,
    private readonly credits: CreditService,
    private readonly vault: SecretVault,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly links: DownloadLinks,
    private readonly executor: PluginExecutor,
    private readonly config: RunnerConfig,
    private readonly events?: JobFinishedPort,
    private readonly imports?: InputImports,
    /** What acceptance in this process read of the inputs (a media probe): the run reuses it. */
    private readonly acceptedMeasures?: AcceptedMeasures,
  ) {
    this.jobsStore = ports.jobs;
  }

  /**
   * What recovery should do with an unfinished job. Queue jobs go (back) on the queue. A job
   * carrying a secret ran in the process that accepted it: while it may still be running there
   * it is left alone; past its timeout that process is gone, so the job fails with a refund.
   */
  async triage(job: JobRecord): Promise<'queue' | 'leave'> {
    const plugin = this.registry.plugin(job.pluginId);
    if (!plugin || !this.takesSecret(job, plugin)) return 'queue';
    const inputs = job.inputs.map((f) => ({ path: '', format: f.format, filename: f.filename, bytes: f.bytes }));
    // A pipeline may run each of its steps to its deadline.
    const plugins = job.pipeline
      ? job.pipeline.steps.flatMap((step) => this.registry.plugin(step.pluginId) ?? [])
      : [plugin];
    const timeoutMs = plugins.reduce((sum, { limits: { timeoutMs: limit } }) => {
      return sum + (typeof limit === 'number' ? limit : limit(inputs));
    }, 0);
    if (this.clock.now().getTime() - job.createdAt.getTime() > timeoutMs + ABANDONED_MARGIN_MS) {
      await this.fail(job, 'The job was interrupted, and its password is never stored; submit the job again', this.log);
    }
    return 'leave';
  }

  /**
   * Stop this process's run of a job that was just cancelled (failed in the store). Runs in other
   * processes see the job failed within CANCEL_CHECK_MS and stop too.
   */
  cancel(jobId: string): void {
    for (const run of this.running) if (run.jobId === jobId) run.cancelled.abort();
  }

  /** `heartbeat` is called while the job makes progress (the queue renews its lock). */
  async run(jobId: string, signals: RunSignals = {}): Promise<void> {
    const startedAt = this.clock.now();
    const job = await this.jobsStore.jobs.start(jobId, startedAt);
    if (!job) return; // finished already (or never existed): nothing to do
    if (job.attempts === 1) {
      recordJobWait(job.pluginId, (startedAt.getTime() - job.createdAt.getTime()) / 1000);
      recordSpan(
        'job.queue_wait',
        { 'transmute.job.id': job.id, 'transmute.plugin': job.pluginId },
        job.createdAt,
        startedAt,
      );
    }
    const log = childLogger(this.log, { jobId, accountId: job.accountId, plugin: job.pluginId });
    const plugin = this.registry.plugin(job.pluginId);
    if (!plugin) return this.fail(job, `The ${job.pluginId} plugin is no longer installed on this server`, log);
    if (job.attempts > this.config.maxAttempts) {
      return this.fail(job, `The job was interrupted ${job.attempts - 1} times and was given up`, log);
    }
    log.debug('job started', { attempt: job.attempts });
    const secrets = this.vault.take(job.id);
    if (this.takesSecret(job, plugin) && !secrets) {
      return this.fail(
        job,
        'The password was not kept across a server restart (it is never stored); submit the job again',
        log,
      );
    }
    await withSpan('job.run', jobAttributes(job), () =>
      this.execute(job, plugin, { ...withoutMarker(job.options), ...secrets }, log, signals),
    );
  }

  /** Whether the job has a password to run with: its plugin's, or a pipeline's last step's (pipelines.ts). */
  private takesSecret(job: JobRecord, plugin: Plugin): boolean {
    const last = job.pipeline?.steps.at(-1);
    const holder = last ? this.registry.plugin(last.pluginId) : plugin;
    return Boolean(holder && takesSecret(holder, last ? last.options : job.options));
  }

  private async execute(
    job: JobRecord,
    plugin: Plugin,
    options: Record<string, unknown>,
    log: Logger,
    { signal, heartbeat, holdsJob }: RunSignals,
  ) {
    // Shutdown began before this job started: leave it queued.
    if (signal?.aborted) return;
    // One folder per attempt: a run whose queue lock lapsed (its process stalled) may still be stopping while the
    // next attempt runs, here or in another process sharing DATA_DIR, and its clean-up must not touch that one's.
    const jobDir = path.join(this.config.workRoot, job.id);
    const workDir = path.join(jobDir, String(job.attempts));
    // A first attempt has no earlier one whose folder could be left.
    if (job.attempts > 1) await removeEarlierAttempts(jobDir, job.attempts);
    await mkdir(workDir, { recursive: true });
    const started = Date.now();
    // Cancelled (DELETE /api/v1/jobs/{id}): the run is stopped like at shutdown, then killed with its engines.
    const cancelled = new AbortController();
    const run = { jobId: job.id, cancelled };
    this.running.add(run);
    const cancelWatch = setInterval(() => {
      void this.jobsStore.jobs.get(job.id).then(
        (now) => now?.status === 'failed' && cancelled.abort(),
        () => undefined,
      );
    }, CANCEL_CHECK_MS);
    const runSignal = signal ? AbortSignal.any([signal, cancelled.signal]) : cancelled.signal;
    try {
      const imported = job.inputs.some((file) => file.source);
      if (imported) await this.importInputs(job, plugin, runSignal, log);
      // An upload this process accepted was measured then (and checked against the maximum): a pipeline's steps measure
      // their own inputs.
      const accepted = job.pipeline ? undefined : this.acceptedMeasures?.take(plugin.id, job.inputs);
      const inputs: PluginInput[] = await withSpan('job.stage_inputs', {}, () =>
        Promise.all(
          job.inputs.map(async (file, i) => {
            const facts = accepted?.facts[i];
            return {
              path: await this.blobs.localPath(file.blobKey, workDir),
              format: file.format,
              filename: file.filename,
              bytes: file.bytes,
              ...(facts ? { facts } : {}),
            };
          }),
        ),
      );
      if (!inputs.length) throw new PluginError('The uploaded file is no longer available');
      // A fetched import is measured like an upload at acceptance (a pipeline checks each step itself).
      // Its measure serves the run's deadline too (one measure, an engine run, per fetch).
      const fetched =
        imported && !job.pipeline ? { measured: await measureWork(plugin, inputs, workDir, runSignal) } : undefined;
      if (fetched) checkWorkForRun(plugin, fetched.measured, 0);
      const known = fetched ?? (accepted ? { measured: accepted.measured } : undefined);
      let toolReport: JobRecord['toolReport'] = null;
      let lastWrite = 0;
      let lastPercent = 0;
      const hooks: SandboxHooks = {
        signal: runSignal,
        log,
        progress: (pct) => {
          const percent = Math.max(0, Math.min(99, Math.floor(pct)));
          const now = Date.now();
          if (percent <= lastPercent || now - lastWrite < PROGRESS_WRITE_INTERVAL_MS) return;
          lastPercent = percent;
          lastWrite = now;
          heartbeat?.();
          void this.jobsStore.jobs.setProgress(job.id, percent, job.attempts).catch(() => undefined);
        },
        report: (detected) => (toolReport = { op: job.op ?? plugin.op ?? plugin.id, detected }),
      };
      const result = job.pipeline
        ? await this.runPipeline(job, job.pipeline, inputs, workDir, hooks, options)
        : await this.runStep(plugin, inputs, options, job.target, workDir, hooks, known);
      if (job.kind === 'extract' || (job.pipeline && !isFileResult(result))) {
        if (isFileResult(result)) throw new Error(`plugin ${plugin.id} returned a file for an extraction job`);
        const finished = await this.jobsStore.jobs.completeWithResult(job.id, {
          result: result.row,
          at: this.clock.now(),
        });
        log.info('job done', { ms: Date.now() - started });
        if (finished) recordJobFinished(job.pluginId, 'done', (Date.now() - started) / 1000);
        if (finished) await this.events?.jobFinished(job.id);
        await this.deleteInputs(job);
        return;
      }
      if (!isFileResult(result)) throw new Error(`plugin ${plugin.id} returned JSON for a file job`);
      // A merge's output is no more the first input than the second: it downloads as merged.pdf.
      const filename =
        job.kind === 'merge' ? `merged.${result.format}` : outputFilename(job.inputs[0]!.filename, result.format);
      const blobKey = outputKey(job.id, job.attempts);
      const { bytes } = await withSpan('job.store_output', {}, () => this.blobs.putFile(blobKey, result.path));
      const at = this.clock.now();
      // Mints the 15-minute link (stored as its hash only) and finishes the job: download-links.ts.
      const completed = await withSpan('job.complete', {}, () =>
        this.links.complete(job.id, {
          output: { blobKey, filename, format: result.format, bytes },
          toolReport,
          result: result.result ?? null,
          at,
          outputExpiresAt: new Date(at.getTime() + this.config.outputRetentionMs),
        }),
      );
      if (!completed) await this.blobs.delete(blobKey);
      else await this.deleteAttemptOutputs(job.id, job.attempts - 1);
      log.info('job done', { ms: Date.now() - started, bytes });
      activeSpan()?.setAttribute('transmute.output.bytes', bytes);
      if (completed) recordJobFinished(job.pluginId, 'done', (Date.now() - started) / 1000);
      if (completed) await this.events?.jobFinished(job.id);
      await this.deleteInputs(job);
    } catch (err) {
      if (cancelled.signal.aborted) {
        // The job is failed and refunded already (JobService.cancel); its uploads go.
        log.info('job cancelled');
        await this.deleteInputs(job);
        return;
      }
      if (signal?.aborted) {
        // Shutdown, or the queue lock lost: the job runs again, or is run by the attempt holding it.
        const reason = signal.reason instanceof Error ? signal.reason.message : String(signal.reason);
        log.warn('job interrupted; it will run again', { reason });
        return;
      }
      if (holdsJob && !(await holdsJob())) {
        log.warn('job left to the attempt that holds it now', { error: String((err as Error)?.message ?? err) });
        return;
      }
      // The service's own database or file store did not answer (a restart, a network blip): not the job's fault.
      // Thrown to the queue, which runs the job again with back-off (each start counts towards maxAttempts).
      if (backendUnavailable(err)) {
        log.warn('job interrupted: a backend did not answer; it will run again', {
          error: String((err as Error)?.message ?? err),
        });
        throw err;
      }
      // An upload deleted before its job ran (retention past, or removed by hand) fails every engine in its own way:
      // the client is told what happened instead.
      const gone = await this.inputGone(job);
      await this.fail(job, gone ? INPUT_GONE : publicMessage(err, plugin), log, err, (Date.now() - started) / 1000);
    } finally {
      clearInterval(cancelWatch);
      this.running.delete(run);
      await removeFolder(workDir);
      // The job's folder goes with its last attempt's (another attempt's folder keeps it).
      await rmdir(jobDir).catch(() => undefined);
    }
  }

  /**
   * Fetch the job's URL imports into their blob keys (this is the background half of an import:
   * the submit only checked the URL and its HEAD), then true up the cost on the sizes fetched:
   * the difference is charged, or the excess given back (docs/API.md: URL imports). A failure is the
   * job's error (PluginError): fetch, size, content, or an account that cannot pay the difference.
   * `job` is updated in place, so a later failure refunds what was finally charged.
   */
  private async importInputs(job: JobRecord, plugin: Plugin, signal: AbortSignal, log: Logger): Promise<void> {
    if (!this.imports) throw new PluginError('Importing from a URL is not available on this server');
    const inputs: StoredFile[] = [];
    try {
      for (const file of job.inputs) inputs.push(await this.imports.fetchInput(file, signal));
    } catch (err) {
      if (err instanceof ServiceError) throw new PluginError(err.message);
      throw err;
    }
    const bytes = inputs.reduce((sum, file) => sum + file.bytes, 0);
    const trial = isTrialJob(job);
    const pipeline = job.pipeline
      ? {
          steps: job.pipeline.steps.map((step) => ({
            ...step,
            creditCost: creditCost(
              { format: step.inputFormat, bytes: inputs[0]!.bytes },
              this.registry.plugin(step.pluginId)?.creditWeight,
            ),
          })),
        }
      : null;
    const cost = trial
      ? 0
      : pipeline
        ? pipeline.steps.reduce((sum, step) => sum + step.creditCost, 0)
        : creditCost({ format: job.inputFormat, bytes }, plugin.creditWeight);
    const difference = cost - job.creditCost;
    try {
      await this.credits.adjust(job, difference);
    } catch (err) {
      if (!(err instanceof ServiceError) || err.code !== 'PAYMENT_REQUIRED') throw err;
      throw new PluginError(
        `Insufficient API credits: the file fetched is ${bytes} bytes and costs ${cost} credits, ` +
          `${difference} more than charged at acceptance; the credits charged were refunded`,
      );
    }
    if (
      !(await this.jobsStore.jobs.setImported(job.id, { inputs, creditCost: cost, pipeline, attempt: job.attempts }))
    ) {
      // Cancelled meanwhile (the cancel refunded what was charged at acceptance), or a later attempt holds the job
      // (its lock lapsed while this run stalled): the difference goes back either way.
      await this.credits.undoAdjust(job, difference);
      throw new PluginError(CANCELLED_DURING_IMPORT);
    }
    log.debug('url import fetched', { bytes, cost, difference });
    job.inputs = inputs;
    job.creditCost = cost;
    if (pipeline) job.pipeline = pipeline;
  }

  /** One plugin run in the sandbox, its deadline from the work measured in its inputs. */
  private async runStep(
    plugin: Plugin,
    inputs: PluginInput[],
    options: Record<string, unknown>,
    target: FormatId,
    workDir: string,
    hooks: SandboxHooks,
    known?: { measured: number | undefined },
  ): Promise<RunResult> {
    const work = await withSpan('job.measure', {}, () => workForDeadline(plugin, inputs, workDir, hooks.signal, known));
    const timeoutMs = runTimeoutMs(plugin, inputs, work);
    const run: SandboxRun = {
      pluginId: plugin.id,
      inputs,
      options,
      target,
      workDir,
      timeoutMs,
      memoryMb: plugin.limits.memoryMb ?? DEFAULT_MEMORY_MB,
    };
    // The span is active while the pool runs it: the run message carries it into the sandbox process.
    const sandboxed = withSpan(
      'sandbox.run',
      { 'transmute.plugin': plugin.id, 'transmute.timeout_ms': timeoutMs, 'transmute.memory_mb': run.memoryMb },
      () => this.executor.run(run, hooks),
    );
    return checkResult(await sandboxed, plugin, workDir);
  }

  /**
   * A pipeline's steps in order, each in its own sandbox run and work dir under the job's, each
   * taking the previous output (intermediates never leave the work dir, removed when the job
   * ends). The steps' states are written as they change; a step's failure names the step. The
   * job's progress is the steps' together. `secrets` (a password, held in memory only) go to the
   * last step, the only one that may take them. Returns the last step's result.
   */
  private async runPipeline(
    job: JobRecord,
    pipeline: PipelineRecord,
    inputs: PluginInput[],
    workDir: string,
    hooks: SandboxHooks,
    secrets: Record<string, unknown>,
  ): Promise<RunResult> {
    const save = () => this.jobsStore.jobs.setPipeline(job.id, pipeline, job.attempts).catch(() => undefined);
    const count = pipeline.steps.length;
    let current = inputs;
    let result: RunResult | undefined;
    for (const [index, step] of pipeline.steps.entries()) {
      const plugin = this.registry.plugin(step.pluginId);
      if (!plugin)
        throw new PluginError(`steps[${index}]: the ${step.pluginId} plugin is no longer installed on this server`);
      if (result && !isFileResult(result))
        throw new Error(`pipeline step ${index - 1} returned JSON before the last step`);
      if (result) {
        const previous = current[0]!;
        current = [
          {
            path: result.path,
            format: result.format,
            filename: outputFilename(previous.filename, result.format),
            bytes: (await stat(result.path)).size,
          },
        ];
      }
      step.status = 'active';
      await save();
      const stepDir = path.join(workDir, `step-${index}`);
      await mkdir(stepDir, { recursive: true });
      try {
        // Intermediate outputs are measured like uploads: a step may not grow past its plugin's maximum.
        const measured = await measureWork(plugin, current, stepDir, hooks.signal);
        checkWorkForRun(plugin, measured, index);
        const options = index === count - 1 ? { ...withoutMarker(step.options), ...secrets } : step.options;
        result = await this.runStep(
          plugin,
          current,
          options,
          step.target,
          stepDir,
          {
            ...hooks,
            progress: (pct) => hooks.progress((index * 100 + Math.max(0, Math.min(100, pct))) / count),
          },
          { measured },
        );
      } catch (err) {
        step.status = 'failed';
        await save();
        if (hooks.signal?.aborted) throw err;
        throw new PluginError(`steps[${index}] (${describeStep(step)}): ${publicMessage(err, plugin)}`);
      }
      step.status = 'done';
      step.progress = 100;
      await save();
      hooks.progress(((index + 1) * 100) / count);
    }
    return result!;
  }

  private async fail(job: JobRecord, message: string, log: Logger, cause?: unknown, runSeconds?: number) {
    if (cause && !(cause instanceof PluginError))
      log.error('job failed', { error: String((cause as Error)?.stack ?? cause) });
    else {
      // The client's message has no server paths or engine output; the log (with the job's id) keeps them.
      const detail = cause instanceof PluginError && cause.message !== message ? { detail: cause.message } : {};
      const engine =
        cause instanceof PluginError && cause.cause instanceof Error ? { engine: cause.cause.message } : {};
      log.info('job failed', { error: message, ...detail, ...engine });
    }
    activeSpan()?.setAttribute('transmute.job.status', 'failed');
    // Its credits (or free try) come back in the same write (spec: side effects).
    if (await this.credits.failJob(job.id, message)) {
      recordJobFinished(job.pluginId, 'failed', runSeconds);
      await this.events?.jobFinished(job.id);
      // What attempts that died left behind; a run still stopping finds the job ended and removes its own.
      await this.deleteAttemptOutputs(job.id, job.attempts);
      await rm(path.join(this.config.workRoot, job.id), { recursive: true, force: true });
    }
    await this.deleteInputs(job);
  }

  /**
   * Folders under the work root of jobs that ended, or that the store does not know: what a run left when its
   * process was killed (a run that stops by itself removes its own). An unfinished job's folder stays: a process
   * sharing DATA_DIR may be running it, and its next attempt here removes the earlier attempts' folders.
   */
  async sweepWork(): Promise<number> {
    const entries = await readdir(this.config.workRoot).catch(() => [] as string[]);
    let removed = 0;
    for (const jobId of entries.slice(0, MAX_SWEPT_FOLDERS)) {
      if (!JOB_FOLDER.test(jobId)) continue;
      const job = await this.jobsStore.jobs.view(jobId);
      if (job && (job.status === 'waiting' || job.status === 'active')) continue;
      await rm(path.join(this.config.workRoot, jobId), { recursive: true, force: true });
      removed++;
    }
    return removed;
  }

  /**
   * Outputs of attempts 1..`upTo` (each attempt stores under its own key): one that died between storing its output
   * and finishing the job left it, referenced by nothing.
   */
  private async deleteAttemptOutputs(jobId: string, upTo: number) {
    await Promise.all(Array.from({ length: upTo }, (_, i) => this.blobs.delete(outputKey(jobId, i + 1))));
  }

  /** Uploads go as soon as the job ends; extraction rows keep the file names until results expire. */
  /** Whether an upload of the job is missing from the file store (fetched imports excepted: not stored yet). */
  private async inputGone(job: JobRecord): Promise<boolean> {
    const stored = job.inputs.filter((file) => !file.source);
    const present = await Promise.all(stored.map((file) => this.blobs.exists(file.blobKey).catch(() => true)));
    return present.includes(false);
  }

  private async deleteInputs(job: JobRecord) {
    await Promise.all(job.inputs.map((file) => this.blobs.delete(file.blobKey)));
    if (job.kind !== 'extract') await this.jobsStore.jobs.clearInputs(job.id);
  }
}

/** A job's work folder is named by its id (a UUID). */
const JOB_FOLDER = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** One sweep looks at this many folders at most (the next takes the rest). */
const MAX_SWEPT_FOLDERS = 10_000;

/** Per attempt: a run that finds the job finished by another attempt deletes its own output, not that one's. */
const outputKey = (jobId: string, attempt: number) => `outputs/${jobId}.${attempt}`;

/**
 * What earlier attempts of a job left in its folder (a crash, or a run stopped when its lock was lost): never a
 * later attempt's folder, which a run superseded while it stalled would otherwise delete under that attempt.
 */
async function removeEarlierAttempts(jobDir: string, attempt: number): Promise<void> {
  const entries = await readdir(jobDir).catch(() => [] as string[]);
  const later = (name: string) => /^\d+$/.test(name) && Number(name) >= attempt;
  await Promise.all(
    entries.filter((name) => !later(name)).map((name) => rm(path.join(jobDir, name), { recursive: true, force: true })),
  );
}

/** A plugin's result is data from another process: a file must be in its work dir, in a known format. */
function checkResult(result: RunResult, plugin: Plugin, workDir: string): RunResult {
  if (!isFileResult(result)) return result;
  const resolved = path.resolve(result.path);
  if (!resolved.startsWith(workDir + path.sep) || !isFormatId(result.format)) {
    throw new Error(
      `plugin ${plugin.id} returned ${result.path} (${result.format}), outside its work dir or in an unknown format`,
    );
  }
  return { path: resolved, format: result.format, ...(result.result ? { result: result.result } : {}) };
}

/** A step as the client named it: `to pdf`, `op compress-pdf`, `extract pdf-to-markdown`. */
export function describeStep(step: Pick<PipelineStepRecord, 'to' | 'op' | 'extract'>): string {
  if (step.extract) return `extract ${step.extract}`;
  return step.op ? `op ${step.op}` : `to ${step.to}`;
}

/** A run-time work check (an intermediate file past the next step's maximum) fails the step. */
function checkWorkForRun(plugin: Plugin, measured: number | undefined, index: number): void {
  try {
    checkWork(
      plugin,
      plugin.op ? `op '${plugin.op}'` : plugin.title,
      measured,
      index === 0 ? 'the input' : `the output of step ${index - 1}`,
    );
  } catch (err) {
    throw new PluginError((err as Error).message);
  }
}

const INPUT_GONE = 'The uploaded file is no longer stored (it expired before the job could run); send it again';

/**
 * What the client may see: plugin messages without server paths (the log keeps the error whole, with the job's
 * id); engine and internal errors summarised.
 */
function publicMessage(err: unknown, plugin: Plugin): string {
  if (err instanceof PluginError) return withoutServerPaths(err.message);
  if (storageFull(err)) return "The server's disk was full while the job ran; submit it again later";
  if (err instanceof EngineError) {
    if (err.reason === 'timeout') return `${plugin.title} timed out`;
    if (err.reason === 'missing') return `${plugin.title} is not available: ${err.command} is not installed`;
    return `${plugin.title} failed: the file could not be processed`;
  }
  return `${plugin.title} failed: internal error`;
}

/**
 * What a job's spans say of it: ids, plugin, formats and sizes; never file names or options (they may hold secrets).
 */
function jobAttributes(job: JobRecord): Record<string, string | number> {
  return {
    'transmute.job.id': job.id,
    'transmute.job.kind': job.kind,
    'transmute.plugin': job.pluginId,
    'transmute.job.attempt': job.attempts,
    'transmute.input.format': job.inputFormat,
    'transmute.output.format': job.target,
    'transmute.input.files': job.inputs.length,
    'transmute.input.bytes': job.inputs.reduce((sum, f) => sum + f.bytes, 0),
  };
}

function childLogger(log: Logger, fields: Record<string, unknown>): Logger {
  return {
    debug: (msg, data) => log.debug(msg, { ...fields, ...data }),
    info: (msg, data) => log.info(msg, { ...fields, ...data }),
    warn: (msg, data) => log.warn(msg, { ...fields, ...data }),
    error: (msg, data) => log.error(msg, { ...fields, ...data }),
  };
}
