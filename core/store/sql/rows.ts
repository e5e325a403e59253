/**
 * Rows of the SQL adapters (sqlite/, postgres/) into records: both use the same tables and
 * column names. Times arrive as epoch milliseconds (SQLite) or Date (PostgreSQL), flags as 0/1
 * or booleans, JSON columns as text.
 */
import type {
  Account,
  ApiKeyRecord,
  ExportRecord,
  OpenExport,
  BatchRecord,
  DownloadTokenRecord,
  EmailTokenRecord,
  JobRecord,
  JobView,
  LoginRecord,
  SessionRecord,
  StoredFile,
  WebhookAccountSecretRecord,
  WebhookAttemptRecord,
  WebhookDeliveryRecord,
  WebhookEndpointRecord,
} from '../types.js';
import type { ToolReport } from '../../../schema/index.js';
import { pipelineFromStored, type StoredPipeline } from '../stored-pipeline.js';

export type Row = Record<string, unknown>;

export const toDate = (v: unknown): Date | null => (v === null || v === undefined ? null : new Date(Number(v)));
export const ms = (d: Date | null | undefined): number | null => (d ? d.getTime() : null);
export const json = <T>(v: unknown): T => JSON.parse(String(v)) as T;

/**
 * The status filter of listOpenExports, as SQL on the export_state JSON (the ->> operator: SQLite and
 * PostgreSQL). The partial indexes jobs_open_exports and batches_open_exports repeat it to the letter.
 */
export const OPEN_EXPORT = `export_state IS NOT NULL AND (export_state ->> 'status') IN ('pending', 'uploading')`;

export const openExportFromRow = (r: Row): OpenExport => ({
  id: String(r.id),
  export: json<ExportRecord>(r.export_state),
});
export const flag = (v: unknown): boolean => v === 1 || v === true;

export function accountFromRow(r: Row): Account {
  return {
    id: String(r.id),
    plan: r.plan as Account['plan'],
    email: (r.email as string | null) ?? null,
    emailVerified: flag(r.email_verified),
    overageEnabled: flag(r.overage_enabled),
    creditsIncluded: (r.credits_included as number | null) ?? null,
    requestsPerMinute: (r.requests_per_minute as number | null) ?? null,
    createdAt: toDate(r.created_at)!,
  };
}

export function keyFromRow(r: Row): ApiKeyRecord {
  return {
    id: String(r.id),
    accountId: String(r.account_id),
    hash: String(r.hash),
    prefix: String(r.prefix),
    createdAt: toDate(r.created_at)!,
    revokedAt: toDate(r.revoked_at),
    name: (r.name as string | null) ?? null,
    lastUsedAt: toDate(r.last_used_at),
  };
}

export function loginFromRow(r: Row): LoginRecord {
  return {
    email: String(r.email),
    accountId: String(r.account_id),
    passwordHash: String(r.password_hash),
    createdAt: toDate(r.created_at)!,
    updatedAt: toDate(r.updated_at)!,
  };
}

export function sessionFromRow(r: Row): SessionRecord {
  return {
    hash: String(r.hash),
    accountId: String(r.account_id),
    csrfHash: String(r.csrf_hash),
    createdAt: toDate(r.created_at)!,
    expiresAt: toDate(r.expires_at)!,
  };
}

export function emailTokenFromRow(r: Row): EmailTokenRecord {
  return {
    hash: String(r.hash),
    accountId: String(r.account_id),
    email: String(r.email),
    createdAt: toDate(r.created_at)!,
    expiresAt: toDate(r.expires_at)!,
  };
}

/**
 * The columns of a job's view (JobView), in the order the SQLite adapter reads them as values: a job's `result` with a
 * pipeline or from a file job whose plugin returned one (op=structure, op=chunk), never an extraction's row (its poll
 * is the extraction's own; a row may be large).
 */
export const JOB_VIEW_COLUMNS =
  'id, account_id, status, progress, error, tool_report, output, download_token_hash, completed_at, pipeline, ' +
  "export_state, CASE WHEN pipeline IS NOT NULL OR kind <> 'extract' THEN result END AS result";

export function jobViewFromRow(r: Row): JobView {
  return {
    id: String(r.id),
    accountId: String(r.account_id),
    status: r.status as JobRecord['status'],
    progress: Number(r.progress),
    error: (r.error as string | null) ?? null,
    toolReport: r.tool_report ? json<ToolReport>(r.tool_report) : null,
    output: r.output ? json<StoredFile>(r.output) : null,
    result: r.result ? json<Record<string, unknown>>(r.result) : null,
    downloadTokenHash: (r.download_token_hash as string | null) ?? null,
    completedAt: toDate(r.completed_at),
    ...(r.pipeline ? { pipeline: pipelineFromStored(json<StoredPipeline>(r.pipeline)) } : {}),
    ...(r.export_state ? { export: json<ExportRecord>(r.export_state) } : {}),
  };
}

export function jobFromRow(r: Row): JobRecord {
  return {
    ...jobViewFromRow(r),
    batchId: (r.batch_id as string | null) ?? null,
    kind: r.kind as JobRecord['kind'],
    pluginId: String(r.plugin_id),
    op: (r.op as string | null) ?? null,
    inputFormat: r.input_format as JobRecord['inputFormat'],
    target: r.output_format as JobRecord['target'],
    options: json(r.options),
    inputs: json(r.inputs),
    creditCost: Number(r.credit_cost),
    creditPeriod: String(r.credit_period),
    refunded: flag(r.refunded),
    viaApi: flag(r.via_api),
    attempts: Number(r.attempts),
    createdAt: toDate(r.created_at)!,
    startedAt: toDate(r.started_at),
    inputsExpireAt: toDate(r.inputs_expire_at)!,
    outputExpiresAt: toDate(r.output_expires_at),
  };
}

export function finishedJobFromRow(
  r: Row,
): Pick<JobRecord, 'id' | 'accountId' | 'batchId' | 'kind' | 'status'> & { completedAt: Date } {
  return {
    id: String(r.id),
    accountId: String(r.account_id),
    batchId: (r.batch_id as string | null) ?? null,
    kind: r.kind as JobRecord['kind'],
    status: r.status as JobRecord['status'],
    completedAt: toDate(r.completed_at)!,
  };
}

export function batchFromRow(r: Row): BatchRecord {
  return {
    id: String(r.id),
    accountId: String(r.account_id),
    tool: (r.tool as string | null) ?? null,
    total: Number(r.total),
    errors: json(r.errors),
    createdAt: toDate(r.created_at)!,
    ...(r.export_state ? { export: json<ExportRecord>(r.export_state) } : {}),
  };
}

export function tokenFromRow(r: Row): DownloadTokenRecord {
  return {
    hash: String(r.hash),
    jobId: String(r.job_id),
    kind: r.kind as DownloadTokenRecord['kind'],
    reusable: flag(r.reusable),
    expiresAt: toDate(r.expires_at)!,
    consumedAt: toDate(r.consumed_at),
    createdAt: toDate(r.created_at)!,
  };
}

export function endpointFromRow(r: Row): WebhookEndpointRecord {
  return {
    id: String(r.id),
    accountId: String(r.account_id),
    url: String(r.url),
    description: (r.description as string | null) ?? null,
    events: r.events ? json<WebhookEndpointRecord['events']>(r.events) : null,
    secret: String(r.secret),
    previousSecret: (r.previous_secret as string | null) ?? null,
    previousExpiresAt: toDate(r.previous_expires_at),
    disabledAt: toDate(r.disabled_at),
    disabledReason: (r.disabled_reason as string | null) ?? null,
    failingSince: toDate(r.failing_since),
    createdAt: toDate(r.created_at)!,
    updatedAt: toDate(r.updated_at)!,
  };
}

export function deliveryFromRow(r: Row): WebhookDeliveryRecord {
  return {
    id: String(r.id),
    accountId: String(r.account_id),
    eventKey: String(r.event_key),
    type: r.type as WebhookDeliveryRecord['type'],
    subjectId: String(r.subject_id),
    endpointId: (r.endpoint_id as string | null) ?? null,
    url: String(r.url),
    status: r.status as WebhookDeliveryRecord['status'],
    attempts: Number(r.attempts),
    nextAttemptAt: toDate(r.next_attempt_at),
    lastStatusCode: (r.last_status_code as number | null) ?? null,
    lastError: (r.last_error as string | null) ?? null,
    createdAt: toDate(r.created_at)!,
    completedAt: toDate(r.completed_at),
  };
}

export function webhookSecretFromRow(r: Row): WebhookAccountSecretRecord {
  return {
    accountId: String(r.account_id),
    secret: String(r.secret),
    previousSecret: (r.previous_secret as string | null) ?? null,
    previousExpiresAt: toDate(r.previous_expires_at),
    createdAt: toDate(r.created_at)!,
  };
}

export function attemptFromRow(r: Row): WebhookAttemptRecord {
  return {
    deliveryId: String(r.delivery_id),
    endpointId: (r.endpoint_id as string | null) ?? null,
    type: r.type as WebhookAttemptRecord['type'],
    at: toDate(r.at)!,
    statusCode: (r.status_code as number | null) ?? null,
    latencyMs: Number(r.latency_ms),
    error: (r.error as string | null) ?? null,
  };
}

export function webhookTargetFromRow(r: Row): { subjectId: string; accountId: string; url: string; createdAt: Date } {
  return {
    subjectId: String(r.subject_id),
    accountId: String(r.account_id),
    url: String(r.url),
    createdAt: toDate(r.created_at)!,
  };
}

/** Account fields an update may change, and their columns. */
export const ACCOUNT_COLUMNS: Record<string, string> = {
  plan: 'plan',
  email: 'email',
  emailVerified: 'email_verified',
  overageEnabled: 'overage_enabled',
  creditsIncluded: 'credits_included',
  requestsPerMinute: 'requests_per_minute',
};

/** Webhook endpoint fields an update may change, and their columns. */
export const ENDPOINT_COLUMNS: Record<string, string> = {
  url: 'url',
  description: 'description',
  events: 'events',
  secret: 'secret',
  previousSecret: 'previous_secret',
  previousExpiresAt: 'previous_expires_at',
  disabledAt: 'disabled_at',
  disabledReason: 'disabled_reason',
  failingSince: 'failing_since',
  updatedAt: 'updated_at',
};

/** The entries of an update patch that name a column (undefined = leave as is). */
export const patchEntries = (patch: object, columns: Record<string, string>): Array<[string, unknown]> =>
  Object.entries(patch).filter(([k, v]) => v !== undefined && columns[k]);
