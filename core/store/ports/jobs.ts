/** Jobs, batches and extraction results: the records and repository ports of this aggregate. */
import type { FormatId, JobState, ToolReport } from '../../../schema/index.js';

export interface StoredFile {
  blobKey: string;
  filename: string;
  format: FormatId;
  bytes: number;
  /**
   * A URL import not fetched yet: the job's runner fetches it into `blobKey` under
   * `maxBytes` (the plan's limit at acceptance); `bytes` is the size declared then (0: none).
   * Cleared with the inputs when the job ends.
   */
  source?: ImportSource;
}

export interface ImportSource {
  url: string;
  maxBytes: number;
}

export interface JobRecord {
  id: string;
  accountId: string;
  /** The batch this job belongs to (batch conversion), or null. */
  batchId: string | null;
  kind: 'convert' | 'tool' | 'merge' | 'extract';
  pluginId: string;
  op: string | null;
  inputFormat: FormatId;
  /**
   * The format the plugin is asked for (RunContext.target): the request's `to` as parsed, or the op's output format.
   * Stored in the `output_format` column (`outputFormat` in MongoDB).
   */
  target: FormatId;
  /** Options as validated, without secret fields. */
  options: Record<string, unknown>;
  inputs: StoredFile[];
  status: JobState;
  progress: number;
  error: string | null;
  toolReport: ToolReport | null;
  output: StoredFile | null;
  /** Extraction jobs: the JSON row the tool produced (cleared when results expire). */
  result: Record<string, unknown> | null;
  /**
   * SHA-256 of the 15-minute download token, hex. The token itself is never stored: polls derive
   * it again under the server secret (core/services/download-links.ts). Cleared when it expires.
   */
  downloadTokenHash: string | null;
  creditCost: number;
  /** Billing period ('YYYY-MM') the cost was charged to, for refunds. */
  creditPeriod: string;
  refunded: boolean;
  viaApi: boolean;
  attempts: number;
  createdAt: Date;
  startedAt: Date | null;
  completedAt: Date | null;
  /** When the uploads must be gone (acceptance + retention). */
  inputsExpireAt: Date;
  /** When the output must be gone, unless a signed URL holds it longer. */
  outputExpiresAt: Date | null;
  /** Pipelines: the steps one job runs in order; absent on single-step jobs. */
  pipeline?: PipelineRecord | null;
  /** An export of the output: where to and how it went; never the credentials. */
  export?: ExportRecord | null;
}

/**
 * What a poll shows of a job (JobService.present), and its owner: the row without its inputs, options and
 * bookkeeping. `result` may be left null for a job without a pipeline (its poll does not show it).
 */
export type JobView = Pick<
  JobRecord,
  | 'id'
  | 'accountId'
  | 'status'
  | 'progress'
  | 'error'
  | 'toolReport'
  | 'output'
  | 'result'
  | 'downloadTokenHash'
  | 'completedAt'
  | 'pipeline'
  | 'export'
>;

export interface ExportRecord {
  type: 's3';
  bucket: string;
  key: string;
  status: 'pending' | 'uploading' | 'done' | 'failed';
  /**
   * While pending or uploading: until when the process holding the credentials vouches for it
   * (renewed while it lives). Past it, the export is abandoned (ISO 8601).
   */
  heldUntil?: string;
  location?: string;
  etag?: string;
  error?: string;
}

/** One step of a pipeline job, as validated at submit, and where it stands. */
export interface PipelineStepRecord {
  /** What the client asked for (`to`, `op`, or `extract`), echoed in the status. */
  to?: string;
  op?: string;
  extract?: string;
  pluginId: string;
  kind: 'convert' | 'tool' | 'extract';
  /** Options as validated (pipelines take no secret options). */
  options: Record<string, unknown>;
  inputFormat: FormatId;
  /** This step's RunContext.target; the next step's input format. */
  target: FormatId;
  /** Charged at acceptance; given back when this step does not finish. */
  creditCost: number;
  status: JobState;
  progress: number;
}

export interface PipelineRecord {
  steps: PipelineStepRecord[];
}

export interface BatchRecord {
  id: string;
  accountId: string;
  /** The extraction tool (parse-cv, file-search...), or null for a batch conversion. */
  tool: string | null;
  /** Files accepted into the batch (one job each). */
  total: number;
  /** Per-file rejections at acceptance. */
  errors: Array<{ filename: string; error: string }>;
  createdAt: Date;
  /** An export of the batch's ZIP: where to and how it went; never the credentials. */
  export?: ExportRecord | null;
}

export type NewJob = Omit<
  JobRecord,
  | 'batchId'
  | 'status'
  | 'progress'
  | 'error'
  | 'toolReport'
  | 'output'
  | 'result'
  | 'downloadTokenHash'
  | 'refunded'
  | 'attempts'
  | 'startedAt'
  | 'completedAt'
  | 'outputExpiresAt'
> & { batchId?: string | null };

export interface ImportedInputs {
  inputs: StoredFile[];
  creditCost: number;
  pipeline?: PipelineRecord | null;
  /**
   * The attempt (jobs.start's count) that fetched them: applied only while it is still the job's latest, so a run whose
   * queue lock lapsed, and whose job a later attempt has imported meanwhile, charges nothing twice.
   */
  attempt?: number;
}

export interface JobCompletion {
  output: StoredFile;
  /** SHA-256 of the job's 15-minute download token (DownloadLinks.complete supplies it). */
  downloadTokenHash?: string | null;
  toolReport: ToolReport | null;
  /** JSON the plugin returned beside its file (op=structure: the document model), shown in the job's status. */
  result?: Record<string, unknown> | null;
  at: Date;
  outputExpiresAt: Date;
}

/**
 * What a failed job gives back: credits to the billing period they were charged in (the job is marked `refunded`),
 * or the free try of a tool; null for nothing.
 */
export type FailureRefund = { credits: number; period: string } | { trialOf: string } | null;

/** The services' rule (job-policy.ts: refundOf) for what a job gives back when it fails; pure, synchronous. */
export type RefundRule = (job: JobRecord) => FailureRefund;

/** A job recorded with its charge (`used`: the account's usage in the job's period after it), or refused by it. */
export type ChargedJob = { ok: true; job: JobRecord; used: number } | { ok: false; used: number };

export interface JobRepo {
  create(job: NewJob): Promise<JobRecord>;
  /**
   * Charge `job.creditCost` to its account's usage in `job.creditPeriod` and record the job, in one transaction: a
   * process dying or a write failing between the two leaves neither, so every charge has its job. Refused, with no
   * job and nothing charged, when the usage would pass `limit` (null: no limit). The charge is the same conditional
   * write as `usage.charge`.
   */
  createCharged(job: NewJob, limit: number | null): Promise<ChargedJob>;
  get(id: string): Promise<JobRecord | null>;
  /** What a poll reads, every second per job in flight: a store may read less of the row than `get`. */
  view(id: string): Promise<JobView | null>;
  /** Move waiting -> active (counts an attempt); null when the job is not waiting/active any more. */
  start(id: string, at: Date): Promise<JobRecord | null>;
  /**
   * An active job's progress, saved only while `attempt` (jobs.start's count) is the job's latest: a run whose queue
   * lock lapsed does not write over the progress of the attempt running now.
   */
  setProgress(id: string, progress: number, attempt: number): Promise<void>;
  /** A pipeline job's steps as they stand now (waiting or active jobs only). */
  /**
   * `attempt`: applied only while it is the job's latest (jobs.start's count), so a run whose queue lock lapsed does
   * not overwrite the steps of the attempt running now (what a failure refunds is read from them).
   */
  setPipeline(id: string, pipeline: PipelineRecord, attempt?: number): Promise<void>;
  /**
   * An active job's inputs once its URL imports are fetched, with its cost trued up (a pipeline's
   * steps carry theirs); false when the job is not active any more (cancelled meanwhile), or another attempt started.
   */
  setImported(id: string, imported: ImportedInputs): Promise<boolean>;
  /** A job's export state (any job status: the upload follows completion). */
  setExport(id: string, state: ExportRecord): Promise<void>;
  /** Jobs whose export is pending or uploading (abandoned-export recovery). */
  listOpenExports(): Promise<OpenExport[]>;
  /** Finish an active job; false when it was not active (already finished elsewhere). */
  complete(id: string, result: JobCompletion): Promise<boolean>;
  /** Finish an active extraction job with its JSON row; false when it was not active. */
  completeWithResult(id: string, result: { result: Record<string, unknown>; at: Date }): Promise<boolean>;
  /**
   * Fail a waiting or active job and give back what `refundOf` says it was charged, in one transaction: a reader
   * never sees the job failed with its credits still spent, and a process dying midway leaves the job unfailed, not
   * unrefunded. `refundOf` reads the job as the store holds it under the write (its cost trued up by an import, its
   * pipeline's steps as they stand). Wins once: false, giving back nothing, when the job had ended already (failed,
   * cancelled, done). The rule is required: a caller that means to give nothing back says so (`() => null`), so no
   * failure path can skip a refund by leaving it out.
   */
  fail(id: string, error: string, at: Date, refundOf: RefundRule): Promise<boolean>;
  /** Newest first. */
  listByAccount(accountId: string, limit: number, offset: number): Promise<{ total: number; jobs: JobRecord[] }>;
  /** The jobs of one batch, oldest first. */
  listByBatch(batchId: string): Promise<JobRecord[]>;
  /** Jobs still waiting or active (for recovery after a restart). */
  listUnfinished(): Promise<JobRecord[]>;
  /** Jobs waiting to start, counted by plugin, with the oldest one's acceptance time (queue metrics). */
  waitingByPlugin(): Promise<Array<{ pluginId: string; count: number; oldestAt: Date }>>;
  /** Jobs that finished (done or failed) at or after `since`, oldest first: what webhook recovery needs of them. */
  listFinishedSince(
    since: Date,
  ): Promise<Array<Pick<JobRecord, 'id' | 'accountId' | 'batchId' | 'kind' | 'status'> & { completedAt: Date }>>;
  /** Jobs whose uploads are due for deletion and still present. */
  listInputsDue(now: Date): Promise<JobRecord[]>;
  clearInputs(id: string): Promise<void>;
  /** Forget extraction results of jobs accepted before `before`. */
  clearResultsBefore(before: Date): Promise<void>;
  /** Forget the download-token hashes of links that expired at or before `before` (job rows keep the rest). */
  clearExpiredDownloadTokens(before: Date): Promise<void>;
  /** Jobs whose output is due (after holdUntil from signed URLs) and still present. */
  listOutputsDue(now: Date): Promise<JobRecord[]>;
  /** Removes the output and its download-token hash. */
  clearOutput(id: string): Promise<void>;
  extendOutput(id: string, until: Date): Promise<void>;
}

/** An export still pending or uploading, of a job or a batch. */
export interface OpenExport {
  id: string;
  export: ExportRecord;
}

export interface BatchRepo {
  create(batch: BatchRecord): Promise<void>;
  get(id: string): Promise<BatchRecord | null>;
  /** The export state of the batch's ZIP. */
  setExport(id: string, state: ExportRecord): Promise<void>;
  /** Batches whose export is pending or uploading (abandoned-export recovery). */
  listOpenExports(): Promise<OpenExport[]>;
}

/** What every adapter provides for this aggregate. */
export interface JobsStore {
  readonly jobs: JobRepo;
  readonly batches: BatchRepo;
}
