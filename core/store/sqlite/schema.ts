/** Tables of the embedded store. Times are epoch milliseconds; JSON columns hold plain objects. */
export const SCHEMA = `
CREATE TABLE IF NOT EXISTS accounts (
  id TEXT PRIMARY KEY,
  plan TEXT NOT NULL,
  email TEXT,
  email_verified INTEGER NOT NULL DEFAULT 0,
  overage_enabled INTEGER NOT NULL DEFAULT 0,
  credits_included INTEGER,
  requests_per_minute INTEGER,
  created_at INTEGER NOT NULL
);

CREATE TABLE IF NOT EXISTS api_keys (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  hash TEXT NOT NULL UNIQUE,
  prefix TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  revoked_at INTEGER
);
CREATE INDEX IF NOT EXISTS api_keys_account ON api_keys (account_id);

CREATE TABLE IF NOT EXISTS jobs (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  batch_id TEXT,
  kind TEXT NOT NULL,
  plugin_id TEXT NOT NULL,
  op TEXT,
  input_format TEXT NOT NULL,
  output_format TEXT NOT NULL,
  options TEXT NOT NULL,
  inputs TEXT NOT NULL,
  status TEXT NOT NULL,
  progress INTEGER NOT NULL DEFAULT 0,
  error TEXT,
  tool_report TEXT,
  output TEXT,
  result TEXT,
  download_token TEXT,
  credit_cost INTEGER NOT NULL,
  credit_period TEXT NOT NULL,
  refunded INTEGER NOT NULL DEFAULT 0,
  via_api INTEGER NOT NULL DEFAULT 1,
  attempts INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  started_at INTEGER,
  completed_at INTEGER,
  inputs_expire_at INTEGER NOT NULL,
  output_expires_at INTEGER
);
CREATE INDEX IF NOT EXISTS jobs_history ON jobs (account_id, created_at DESC);
CREATE INDEX IF NOT EXISTS jobs_batch ON jobs (batch_id) WHERE batch_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS jobs_unfinished ON jobs (status) WHERE status IN ('waiting', 'active');
CREATE INDEX IF NOT EXISTS jobs_inputs_due ON jobs (inputs_expire_at) WHERE inputs != '[]';
CREATE INDEX IF NOT EXISTS jobs_outputs_due ON jobs (output_expires_at) WHERE output IS NOT NULL;

CREATE TABLE IF NOT EXISTS batches (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  tool TEXT,
  total INTEGER NOT NULL,
  errors TEXT NOT NULL,
  created_at INTEGER NOT NULL
);

CREATE TABLE IF NOT EXISTS trials (
  account_id TEXT NOT NULL REFERENCES accounts(id),
  tool TEXT NOT NULL,
  claimed_at INTEGER NOT NULL,
  PRIMARY KEY (account_id, tool)
);

CREATE TABLE IF NOT EXISTS download_tokens (
  hash TEXT PRIMARY KEY,
  job_id TEXT NOT NULL REFERENCES jobs(id),
  kind TEXT NOT NULL,
  reusable INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  consumed_at INTEGER,
  created_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS download_tokens_expiry ON download_tokens (expires_at);

CREATE TABLE IF NOT EXISTS usage (
  account_id TEXT NOT NULL REFERENCES accounts(id),
  period TEXT NOT NULL,
  used INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (account_id, period)
);

CREATE TABLE IF NOT EXISTS rate_windows (
  key TEXT NOT NULL,
  window_start INTEGER NOT NULL,
  count INTEGER NOT NULL,
  PRIMARY KEY (key, window_start)
);
`;

/**
 * Version 2: download tokens are derived under the server secret and stored only as hashes
 * (core/services/download-links.ts). Plain tokens are blanked and the column dropped; the
 * upgraded file is then rebuilt (see migrate) so their bytes do not linger in free pages. Links minted
 * before the upgrade keep opening until they expire (their hashes are in download_tokens), but
 * polls no longer show them.
 */
export const HASHED_DOWNLOAD_TOKENS = `
UPDATE jobs SET download_token = NULL WHERE download_token IS NOT NULL;
ALTER TABLE jobs DROP COLUMN download_token;
ALTER TABLE jobs ADD COLUMN download_token_hash TEXT;
`;

/**
 * Version 3: webhooks (core/services/webhooks.ts). Secrets are sealed by the service before
 * they reach the store. A delivery is unique per event and target (endpoint id, or the
 * override URL prefixed with "url:").
 */
export const WEBHOOKS = `
CREATE TABLE webhook_endpoints (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  url TEXT NOT NULL,
  description TEXT,
  events TEXT,
  secret TEXT NOT NULL,
  previous_secret TEXT,
  previous_expires_at INTEGER,
  disabled_at INTEGER,
  disabled_reason TEXT,
  failing_since INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX webhook_endpoints_account ON webhook_endpoints (account_id, created_at);

CREATE TABLE webhook_account_secrets (
  account_id TEXT PRIMARY KEY REFERENCES accounts(id),
  secret TEXT NOT NULL,
  previous_secret TEXT,
  previous_expires_at INTEGER,
  created_at INTEGER NOT NULL
);

CREATE TABLE webhook_deliveries (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL,
  event_key TEXT NOT NULL,
  target TEXT NOT NULL,
  type TEXT NOT NULL,
  subject_id TEXT NOT NULL,
  endpoint_id TEXT,
  url TEXT NOT NULL,
  status TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER,
  last_status_code INTEGER,
  last_error TEXT,
  created_at INTEGER NOT NULL,
  completed_at INTEGER,
  UNIQUE (event_key, target)
);
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (created_at) WHERE status = 'pending';

CREATE TABLE webhook_attempts (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  delivery_id TEXT NOT NULL,
  endpoint_id TEXT,
  type TEXT NOT NULL,
  at INTEGER NOT NULL,
  status_code INTEGER,
  latency_ms INTEGER NOT NULL,
  error TEXT
);
CREATE INDEX webhook_attempts_endpoint ON webhook_attempts (endpoint_id, seq DESC);

CREATE TABLE webhook_targets (
  subject_id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL,
  url TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
`;

/**
 * Version 4: jobs by completion time, for the webhook sweep (an event a crash left unrecorded is recorded a minute
 * later).
 */
export const JOBS_FINISHED_INDEX = `
CREATE INDEX jobs_finished ON jobs (completed_at) WHERE completed_at IS NOT NULL;
`;

/**
 * Version 5: accounts in the browser (core/services/sessions.ts). Keys get a name and a last-use
 * time; sign-in e-mails with argon2id hashes, sessions and e-mail verification links, the last
 * two stored only as SHA-256 digests. A login names its account without a foreign key: sign-up
 * claims the address first (one insert), then creates the account.
 */
export const ACCOUNTS_IN_THE_BROWSER = `
ALTER TABLE api_keys ADD COLUMN name TEXT;
ALTER TABLE api_keys ADD COLUMN last_used_at INTEGER;

CREATE TABLE logins (
  email TEXT PRIMARY KEY,
  account_id TEXT NOT NULL UNIQUE,
  password_hash TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);

CREATE TABLE sessions (
  hash TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  csrf_hash TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
);
CREATE INDEX sessions_account ON sessions (account_id);
CREATE INDEX sessions_expiry ON sessions (expires_at);

CREATE TABLE email_tokens (
  hash TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  email TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
);
CREATE INDEX email_tokens_account ON email_tokens (account_id);
CREATE INDEX email_tokens_expiry ON email_tokens (expires_at);
`;

/** Version 6: pipeline jobs carry their steps, and exported jobs their export's state, as JSON. */
export const PIPELINE_JOBS = `
ALTER TABLE jobs ADD COLUMN pipeline TEXT;
ALTER TABLE jobs ADD COLUMN export_state TEXT;
`;

/** Version 7: a batch exported to S3 carries its export's state, as JSON. */
export const BATCH_EXPORTS = `
ALTER TABLE batches ADD COLUMN export_state TEXT;
`;

/**
 * Version 8: the export lease sweep (listOpenExports) reads the open exports through an index of
 * them alone. Its condition is the query's (OPEN_EXPORT in core/store/sql/rows.ts) to the letter:
 * SQLite uses a partial index only for a query that repeats its WHERE terms.
 */
export const OPEN_EXPORTS_INDEX = `
CREATE INDEX jobs_open_exports ON jobs (id)
  WHERE export_state IS NOT NULL AND (export_state ->> 'status') IN ('pending', 'uploading');
CREATE INDEX batches_open_exports ON batches (id)
  WHERE export_state IS NOT NULL AND (export_state ->> 'status') IN ('pending', 'uploading');
`;
