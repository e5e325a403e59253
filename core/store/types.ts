/**
 * Repository ports. Services talk to these only; sqlite/ and mongo/ implement them and both
 * pass the one contract suite in contract.ts.
 */
import type { FormatId, JobState, PlanId, ToolReport, WebhookEventType } from '../../schema/index.js';

export interface Account {
  id: string;
  plan: PlanId;
  email: string | null;
  emailVerified: boolean;
  overageEnabled: boolean;
  /** Per-account allowance; set for Enterprise (custom), null = the plan's. */
  creditsIncluded: number | null;
  /** Per-account rate; set for Enterprise, null = the plan's. */
  requestsPerMinute: number | null;
  createdAt: Date;
}

export interface ApiKeyRecord {
  id: string;
  accountId: string;
  /** SHA-256 of the full key, hex. The key itself is never stored. */
  hash: string;
  /** First characters, for listing ("ck_live_AbCd"). */
  prefix: string;
  createdAt: Date;
  revokedAt: Date | null;
  /** The owner's label for it (account panel); absent on keys made before keys had names. */
  name?: string | null;
  /** When a request last came with it (updated at most once a minute); null = never used. */
  lastUsedAt?: Date | null;
}

/** How an account signs in: its e-mail address (normalised, unique) and an argon2id password hash. */
export interface LoginRecord {
  email: string;
  accountId: string;
  /** PHC string ($argon2id$...). The password itself is never stored. */
  passwordHash: string;
  createdAt: Date;
  updatedAt: Date;
}

/** A browser session. Only digests are stored: the cookie's token and the session's CSRF token. */
export interface SessionRecord {
  /** SHA-256 of the session cookie's token, hex. */
  hash: string;
  accountId: string;
  /** SHA-256 of the session's CSRF token (the transmute_csrf cookie), hex. */
  csrfHash: string;
  createdAt: Date;
  /** Sliding: pushed forward as the session is used. */
  expiresAt: Date;
}

/** A pending e-mail verification link: single use, expiring. */
export interface EmailTokenRecord {
  /** SHA-256 of the link's token, hex. */
  hash: string;
  accountId: string;
  /** The address the link was sent to: verifying it verifies only that address. */
  email: string;
  createdAt: Date;
  expiresAt: Date;
}

export interface StoredFile {
  blobKey: string;
  filename: string;
  format: FormatId;
  bytes: number;
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
  outputFormat: FormatId;
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
  /** Pipelines (issue 27): the steps one job runs in order; absent on single-step jobs. */
  pipeline?: PipelineRecord | null;
  /** An export of the output (issue 27): where to and how it went; never the credentials. */
  export?: ExportRecord | null;
}

export interface ExportRecord {
  type: 's3';
  bucket: string;
  key: string;
  status: 'pending' | 'uploading' | 'done' | 'failed';
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
  outputFormat: FormatId;
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
}

export type NewJob = Omit<JobRecord, 'batchId' | 'status' | 'progress' | 'error' | 'toolReport' | 'output' | 'result' | 'downloadTokenHash' | 'refunded' | 'attempts' | 'startedAt' | 'completedAt' | 'outputExpiresAt'> & { batchId?: string | null };

export interface JobCompletion {
  output: StoredFile;
  /** SHA-256 of the job's 15-minute download token (DownloadLinks.complete supplies it). */
  downloadTokenHash?: string | null;
  toolReport: ToolReport | null;
  at: Date;
  outputExpiresAt: Date;
}

export interface DownloadTokenRecord {
  /** SHA-256 of the token, hex: a leaked database does not leak working links. */
  hash: string;
  jobId: string;
  kind: 'download' | 'signed';
  reusable: boolean;
  expiresAt: Date;
  consumedAt: Date | null;
  createdAt: Date;
}

export interface UsageRecord {
  accountId: string;
  period: string;
  used: number;
}

export type ChargeResult = { ok: true; used: number } | { ok: false; used: number };

export interface AccountRepo {
  create(account: Account): Promise<void>;
  get(id: string): Promise<Account | null>;
  update(id: string, patch: Partial<Omit<Account, 'id' | 'createdAt'>>): Promise<void>;
}

export interface KeyRepo {
  create(key: ApiKeyRecord): Promise<void>;
  /** Active (not revoked) key by hash. */
  findActiveByHash(hash: string): Promise<ApiKeyRecord | null>;
  listByAccount(accountId: string): Promise<ApiKeyRecord[]>;
  /** Returns false when no active key has that hash. */
  revokeByHash(hash: string, at: Date): Promise<boolean>;
  /** Revoke one key of one account; false when the account has no active key with that id. */
  revokeById(accountId: string, id: string, at: Date): Promise<boolean>;
  /** Record a use; only writes when the last recorded use is before `staleBefore` (one write a minute, not one a request). */
  markUsed(id: string, at: Date, staleBefore: Date): Promise<void>;
}

export interface LoginRepo {
  /** False when a login with that e-mail exists (nothing written): one insert claims the address. */
  create(login: LoginRecord): Promise<boolean>;
  findByEmail(email: string): Promise<LoginRecord | null>;
  getByAccount(accountId: string): Promise<LoginRecord | null>;
  setPasswordHash(accountId: string, passwordHash: string, at: Date): Promise<boolean>;
}

export interface SessionRepo {
  create(session: SessionRecord): Promise<void>;
  /** The session with that hash if it has not expired at `now`. */
  findActive(hash: string, now: Date): Promise<SessionRecord | null>;
  /** Push the expiry forward (sliding sessions). */
  extend(hash: string, expiresAt: Date): Promise<void>;
  delete(hash: string): Promise<void>;
  /** Every session of an account (password changed): returns how many. */
  deleteByAccount(accountId: string): Promise<number>;
  deleteExpired(now: Date): Promise<number>;
}

export interface EmailTokenRepo {
  create(token: EmailTokenRecord): Promise<void>;
  /** Take a token once: the record if it existed and had not expired at `now` (it is deleted either way). */
  consume(hash: string, now: Date): Promise<EmailTokenRecord | null>;
  /** Forget an account's pending links (a new one was sent, or the address was verified). */
  deleteByAccount(accountId: string): Promise<number>;
  deleteExpired(now: Date): Promise<number>;
}

export interface JobRepo {
  create(job: NewJob): Promise<JobRecord>;
  get(id: string): Promise<JobRecord | null>;
  /** Move waiting -> active (counts an attempt); null when the job is not waiting/active any more. */
  start(id: string, at: Date): Promise<JobRecord | null>;
  setProgress(id: string, progress: number): Promise<void>;
  /** A pipeline job's steps as they stand now (waiting or active jobs only). */
  setPipeline(id: string, pipeline: PipelineRecord): Promise<void>;
  /** A job's export state (any job status: the upload follows completion). */
  setExport(id: string, state: ExportRecord): Promise<void>;
  /** Finish an active job; false when it was not active (already finished elsewhere). */
  complete(id: string, result: JobCompletion): Promise<boolean>;
  /** Finish an active extraction job with its JSON row; false when it was not active. */
  completeWithResult(id: string, result: { result: Record<string, unknown>; at: Date }): Promise<boolean>;
  fail(id: string, error: string, at: Date): Promise<boolean>;
  /** Mark the charge refunded once; false when it already was. */
  markRefunded(id: string): Promise<boolean>;
  /** Newest first. */
  listByAccount(accountId: string, limit: number, offset: number): Promise<{ total: number; jobs: JobRecord[] }>;
  /** The jobs of one batch, oldest first. */
  listByBatch(batchId: string): Promise<JobRecord[]>;
  /** Jobs still waiting or active (for recovery after a restart). */
  listUnfinished(): Promise<JobRecord[]>;
  /** Jobs that finished (done or failed) at or after `since`, oldest first: what webhook recovery needs of them. */
  listFinishedSince(since: Date): Promise<Array<Pick<JobRecord, 'id' | 'accountId' | 'batchId' | 'kind' | 'status'> & { completedAt: Date }>>;
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

export interface BatchRepo {
  create(batch: BatchRecord): Promise<void>;
  get(id: string): Promise<BatchRecord | null>;
}

/** The one free extraction call per tool for non-paid accounts. */
export interface TrialRepo {
  /** Atomically take the trial; false when it was already taken. */
  claim(accountId: string, tool: string, at: Date): Promise<boolean>;
  /** Give it back (the trial job failed). */
  release(accountId: string, tool: string): Promise<void>;
}

export interface TokenRepo {
  create(token: DownloadTokenRecord): Promise<void>;
  get(hash: string): Promise<DownloadTokenRecord | null>;
  /** Atomically consume a single-use token; false when it was already consumed. */
  consume(hash: string, at: Date): Promise<boolean>;
  deleteExpired(now: Date): Promise<number>;
}

export interface UsageRepo {
  get(accountId: string, period: string): Promise<UsageRecord>;
  /**
   * Atomically add `cost` to the period's usage if `used + cost <= limit` (limit null = no cap).
   * One conditional write: never read-then-write.
   */
  charge(accountId: string, period: string, cost: number, limit: number | null): Promise<ChargeResult>;
  refund(accountId: string, period: string, cost: number): Promise<void>;
  set(accountId: string, period: string, used: number): Promise<void>;
}

export interface RateRepo {
  /** Count one request in the window starting at windowStart (ms); returns the count after it. */
  hit(key: string, windowStart: number): Promise<number>;
  deleteBefore(windowStart: number): Promise<void>;
}

export type { WebhookEventType };

/**
 * A signing secret as stored: sealed (AES-256-GCM under a key derived from the server secret),
 * so the server can still sign with it but a leaked database alone does not yield it.
 */
export interface SealedSecrets {
  secret: string;
  /** The secret before the last rotation: it still signs until previousExpiresAt (24 h). */
  previousSecret: string | null;
  previousExpiresAt: Date | null;
}

export interface WebhookEndpointRecord extends SealedSecrets {
  id: string;
  accountId: string;
  url: string;
  description: string | null;
  /** The events sent; null = every event. */
  events: WebhookEventType[] | null;
  /** Disabled by its owner, or by the service after failing for 5 days (disabledReason says which). */
  disabledAt: Date | null;
  disabledReason: string | null;
  /** Since when every attempt has failed (null after a success). */
  failingSince: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** The account's default secret: it signs deliveries to per-request webhookUrl overrides. */
export interface WebhookAccountSecretRecord extends SealedSecrets {
  accountId: string;
  createdAt: Date;
}

/**
 * One event for one target. `eventKey` (`<type>:<subject id>`) and the target (endpoint id, or
 * the override URL) are unique together: one record per event, however often it is emitted.
 * The record's id is the `webhook-id` every attempt carries.
 */
export interface WebhookDeliveryRecord {
  id: string;
  accountId: string;
  eventKey: string;
  type: WebhookEventType;
  /** Job id (job events) or batch id (batch and extraction events). */
  subjectId: string;
  /** The registered endpoint, or null for a per-request override. */
  endpointId: string | null;
  url: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  nextAttemptAt: Date | null;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: Date;
  completedAt: Date | null;
}

/** The unique target of a delivery: its endpoint, or its override URL. */
export const deliveryTarget = (d: { endpointId: string | null; url: string }): string => d.endpointId ?? `url:${d.url}`;

export type NewWebhookDelivery = Omit<WebhookDeliveryRecord, 'status' | 'attempts' | 'lastStatusCode' | 'lastError' | 'completedAt'>;

/** One HTTP attempt, for the per-endpoint log (the last 100 are kept). */
export interface WebhookAttemptRecord {
  deliveryId: string;
  endpointId: string | null;
  type: WebhookEventType | 'webhook.test';
  at: Date;
  /** The receiver's HTTP status; null when no answer came (refused, timed out, unreachable). */
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
}

export interface WebhookEndpointRepo {
  create(endpoint: WebhookEndpointRecord): Promise<void>;
  get(id: string): Promise<WebhookEndpointRecord | null>;
  /** Oldest first. */
  listByAccount(accountId: string): Promise<WebhookEndpointRecord[]>;
  update(id: string, patch: Partial<Omit<WebhookEndpointRecord, 'id' | 'accountId' | 'createdAt'>>): Promise<void>;
  /** Deletes the endpoint and its attempt log; false when there was none. */
  delete(id: string): Promise<boolean>;
}

export interface WebhookAccountSecretRepo {
  get(accountId: string): Promise<WebhookAccountSecretRecord | null>;
  /** Creates or replaces the account's record. */
  put(record: WebhookAccountSecretRecord): Promise<void>;
}

export interface WebhookDeliveryRepo {
  /** False when the event already has a record for that target (nothing written). */
  create(delivery: NewWebhookDelivery): Promise<boolean>;
  get(id: string): Promise<WebhookDeliveryRecord | null>;
  /** After a failed attempt: due again at nextAttemptAt. Only a pending delivery changes. */
  retryLater(id: string, attempt: { statusCode: number | null; error: string | null; nextAttemptAt: Date }): Promise<boolean>;
  /** Delivered or given up; only a pending delivery changes (false otherwise). */
  finish(id: string, outcome: { status: 'delivered' | 'failed'; statusCode: number | null; error: string | null; at: Date }): Promise<boolean>;
  /** Pending deliveries, oldest first (recovery). */
  listPending(): Promise<WebhookDeliveryRecord[]>;
}

export interface WebhookAttemptRepo {
  /** Appends an attempt, keeping the newest `keep` of its endpoint. */
  add(attempt: WebhookAttemptRecord, keep: number): Promise<void>;
  /** Newest first. */
  listByEndpoint(endpointId: string, limit: number): Promise<WebhookAttemptRecord[]>;
}

/** Per-request `webhookUrl` overrides, by the job or batch id they were given for. */
export interface WebhookTargetRepo {
  put(target: { subjectId: string; accountId: string; url: string; createdAt: Date }): Promise<void>;
  get(subjectId: string): Promise<{ subjectId: string; accountId: string; url: string; createdAt: Date } | null>;
}

export interface Store {
  readonly accounts: AccountRepo;
  readonly keys: KeyRepo;
  readonly logins: LoginRepo;
  readonly sessions: SessionRepo;
  readonly emailTokens: EmailTokenRepo;
  readonly jobs: JobRepo;
  readonly batches: BatchRepo;
  readonly trials: TrialRepo;
  readonly tokens: TokenRepo;
  readonly usage: UsageRepo;
  readonly rates: RateRepo;
  readonly webhookEndpoints: WebhookEndpointRepo;
  readonly webhookSecrets: WebhookAccountSecretRepo;
  readonly webhookDeliveries: WebhookDeliveryRepo;
  readonly webhookAttempts: WebhookAttemptRepo;
  readonly webhookTargets: WebhookTargetRepo;
  /** Cheap round trip for /readyz. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
