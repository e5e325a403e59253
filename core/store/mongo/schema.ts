/**
 * Collections of the distributed store and their indexes, declared here and created at
 * start-up. Documents keep the port's field names; the record's id is `_id`.
 */
import type { IndexDescription } from 'mongodb';
import type { StoredPipeline } from '../stored-pipeline.js';
import type {
  Account,
  ApiKeyRecord,
  BatchRecord,
  DownloadTokenRecord,
  EmailTokenRecord,
  JobRecord,
  LoginRecord,
  SessionRecord,
  UsageRecord,
  WebhookAccountSecretRecord,
  WebhookAttemptRecord,
  WebhookDeliveryRecord,
  WebhookEndpointRecord,
} from '../types.js';

export type AccountDoc = Omit<Account, 'id'> & { _id: string };
/** `name` and `lastUsedAt` are missing on keys made before keys had them: read them as null. */
export type KeyDoc = Omit<ApiKeyRecord, 'id'> & { _id: string };
/** `_id` is the normalised e-mail address: inserting the document claims it. */
export type LoginDoc = Omit<LoginRecord, 'email'> & { _id: string };
/** `_id` is the SHA-256 of the session token. */
export type SessionDoc = Omit<SessionRecord, 'hash'> & { _id: string };
/** `_id` is the SHA-256 of the link's token. */
export type EmailTokenDoc = Omit<EmailTokenRecord, 'hash'> & { _id: string };
/**
 * `result` is missing on jobs written before extraction existed, `downloadTokenHash` on jobs
 * written before tokens were hashed: read them as null.
 */
/** A job's target is stored as `outputFormat`, its pipeline's too (../stored-pipeline.ts). */
export type JobDoc = Omit<JobRecord, 'id' | 'result' | 'downloadTokenHash' | 'target' | 'pipeline'> & {
  _id: string;
  outputFormat: JobRecord['target'];
  pipeline?: StoredPipeline | null;
  result?: JobRecord['result'];
  downloadTokenHash?: JobRecord['downloadTokenHash'];
};
/** `tool` is missing on batches written before extraction existed: read it as null. */
export type BatchDoc = Omit<BatchRecord, 'id' | 'tool'> & { _id: string; tool?: BatchRecord['tool'] };
/** `_id` is the token's hash. */
export type TokenDoc = Omit<DownloadTokenRecord, 'hash'> & { _id: string };
export type UsageDoc = UsageRecord;
/** One taken free trial; the unique (accountId, tool) index makes taking it a single insert. */
export interface TrialDoc {
  accountId: string;
  tool: string;
  claimedAt: Date;
}
export interface RateDoc {
  key: string;
  windowStart: number;
  count: number;
  /** Wall-clock time the window was first hit: what the TTL index expires on. */
  createdAt: Date;
}

export type WebhookEndpointDoc = Omit<WebhookEndpointRecord, 'id'> & { _id: string };
/** `_id` is the account id. */
export type WebhookSecretDoc = Omit<WebhookAccountSecretRecord, 'accountId'> & { _id: string };
/** `target`: the endpoint id or "url:" + the override URL, unique with `eventKey`. */
export type WebhookDeliveryDoc = Omit<WebhookDeliveryRecord, 'id'> & { _id: string; target: string };
/** `seq` orders the log (a counter per endpoint would need another write; time + random id suffices). */
export type WebhookAttemptDoc = WebhookAttemptRecord & { seq: number };
export interface WebhookTargetDoc {
  _id: string;
  accountId: string;
  url: string;
  createdAt: Date;
}

export const COLLECTIONS = {
  accounts: 'accounts',
  keys: 'apiKeys',
  logins: 'logins',
  sessions: 'sessions',
  emailTokens: 'emailTokens',
  jobs: 'jobs',
  batches: 'batches',
  trials: 'trials',
  tokens: 'downloadTokens',
  usage: 'usage',
  rates: 'rateWindows',
  webhookEndpoints: 'webhookEndpoints',
  webhookSecrets: 'webhookSecrets',
  webhookDeliveries: 'webhookDeliveries',
  webhookAttempts: 'webhookAttempts',
  webhookTargets: 'webhookTargets',
} as const;

/**
 * Expired signed-URL records answer 410 (not 404) for this long; it is the grace the retention
 * service applies before deleting them, so the TTL index only does what the purge would.
 */
const EXPIRED_TOKEN_GRACE_SECONDS = 7 * 24 * 3600;
/** Rate windows last a minute; an hour-old one is certainly finished. */
const RATE_WINDOW_TTL_SECONDS = 3600;

export const INDEXES: Record<keyof typeof COLLECTIONS, IndexDescription[]> = {
  accounts: [],
  keys: [
    { key: { hash: 1 }, name: 'hash_unique', unique: true },
    { key: { accountId: 1, createdAt: 1 }, name: 'account_keys' },
  ],
  logins: [{ key: { accountId: 1 }, name: 'account_unique', unique: true }],
  // Expired sessions and links are refused by their queries; the TTL index only tidies up.
  sessions: [
    { key: { accountId: 1 }, name: 'account_sessions' },
    { key: { expiresAt: 1 }, name: 'expired_sessions', expireAfterSeconds: 0 },
  ],
  emailTokens: [
    { key: { accountId: 1 }, name: 'account_email_tokens' },
    { key: { expiresAt: 1 }, name: 'expired_email_tokens', expireAfterSeconds: 0 },
  ],
  jobs: [
    { key: { accountId: 1, createdAt: -1, _id: -1 }, name: 'history' },
    {
      key: { batchId: 1, createdAt: 1 },
      name: 'batch_jobs',
      partialFilterExpression: { batchId: { $type: 'string' } },
    },
    { key: { status: 1, createdAt: 1 }, name: 'unfinished' },
    { key: { inputsExpireAt: 1 }, name: 'inputs_due' },
    { key: { outputExpiresAt: 1 }, name: 'outputs_due' },
    {
      key: { completedAt: 1 },
      name: 'download_token_hashes_due',
      partialFilterExpression: { downloadTokenHash: { $type: 'string' } },
    },
    { key: { createdAt: 1 }, name: 'results_due', partialFilterExpression: { result: { $type: 'object' } } },
    { key: { completedAt: 1 }, name: 'finished', partialFilterExpression: { completedAt: { $type: 'date' } } },
    // The export lease sweep (listOpenExports): only exported jobs have the field.
    { key: { 'export.status': 1 }, name: 'open_exports', sparse: true },
  ],
  batches: [{ key: { 'export.status': 1 }, name: 'open_exports', sparse: true }],
  trials: [{ key: { accountId: 1, tool: 1 }, name: 'account_tool_unique', unique: true }],
  tokens: [{ key: { expiresAt: 1 }, name: 'expired_after_grace', expireAfterSeconds: EXPIRED_TOKEN_GRACE_SECONDS }],
  usage: [{ key: { accountId: 1, period: 1 }, name: 'account_period_unique', unique: true }],
  rates: [
    { key: { key: 1, windowStart: 1 }, name: 'key_window_unique', unique: true },
    { key: { windowStart: 1 }, name: 'window_start' },
    { key: { createdAt: 1 }, name: 'expired_windows', expireAfterSeconds: RATE_WINDOW_TTL_SECONDS },
  ],
  webhookEndpoints: [{ key: { accountId: 1, createdAt: 1 }, name: 'account_endpoints' }],
  webhookSecrets: [],
  webhookDeliveries: [
    { key: { eventKey: 1, target: 1 }, name: 'event_target_unique', unique: true },
    { key: { createdAt: 1 }, name: 'pending', partialFilterExpression: { status: 'pending' } },
  ],
  webhookAttempts: [{ key: { endpointId: 1, seq: -1 }, name: 'endpoint_log' }],
  // An override outlives its job's events by far: a day after a job's last retry it is of no use.
  webhookTargets: [{ key: { createdAt: 1 }, name: 'expired_targets', expireAfterSeconds: 3 * 24 * 3600 }],
};
