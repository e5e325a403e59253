/**
 * Versioned schema of the PostgreSQL store. Each step runs once, in order, in one transaction
 * with its version recorded in `schema_migrations`; start-up applies the missing ones under an
 * advisory lock, so processes starting together never migrate at once (see migrate in index.ts).
 * Append a step for every change; never edit a step that has shipped.
 *
 * The tables and column names are SQLite's (core/store/sqlite/schema.ts), so both adapters read
 * rows with core/store/sql/rows.ts. Times are timestamptz, flags boolean, JSON columns `json`
 * (kept as written: `jsonb` would refuse a \u0000 in a user's option). Ids that order results
 * use the "C" collation, so ties sort the same as in SQLite whatever the database's locale.
 */
export const MIGRATIONS: readonly string[] = [
  `
CREATE TABLE accounts (
  id TEXT PRIMARY KEY,
  plan TEXT NOT NULL,
  email TEXT,
  email_verified BOOLEAN NOT NULL DEFAULT false,
  overage_enabled BOOLEAN NOT NULL DEFAULT false,
  credits_included INTEGER,
  requests_per_minute INTEGER,
  created_at TIMESTAMPTZ NOT NULL
);

CREATE TABLE api_keys (
  id TEXT COLLATE "C" PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  hash TEXT NOT NULL UNIQUE,
  prefix TEXT NOT NULL,
  name TEXT,
  created_at TIMESTAMPTZ NOT NULL,
  revoked_at TIMESTAMPTZ,
  last_used_at TIMESTAMPTZ
);
CREATE INDEX api_keys_account ON api_keys (account_id);

CREATE TABLE logins (
  email TEXT PRIMARY KEY,
  account_id TEXT NOT NULL UNIQUE,
  password_hash TEXT NOT NULL,
  created_at TIMESTAMPTZ NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL
);

CREATE TABLE sessions (
  hash TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  csrf_hash TEXT NOT NULL,
  created_at TIMESTAMPTZ NOT NULL,
  expires_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX sessions_account ON sessions (account_id);
CREATE INDEX sessions_expiry ON sessions (expires_at);

CREATE TABLE email_tokens (
  hash TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  email TEXT NOT NULL,
  created_at TIMESTAMPTZ NOT NULL,
  expires_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX email_tokens_account ON email_tokens (account_id);
CREATE INDEX email_tokens_expiry ON email_tokens (expires_at);

CREATE TABLE jobs (
  id TEXT COLLATE "C" PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  batch_id TEXT,
  kind TEXT NOT NULL,
  plugin_id TEXT NOT NULL,
  op TEXT,
  input_format TEXT NOT NULL,
  output_format TEXT NOT NULL,
  options JSON NOT NULL,
  inputs JSON NOT NULL,
  status TEXT NOT NULL,
  progress INTEGER NOT NULL DEFAULT 0,
  error TEXT,
  tool_report JSON,
  output JSON,
  result JSON,
  download_token_hash TEXT,
  credit_cost INTEGER NOT NULL,
  credit_period TEXT NOT NULL,
  refunded BOOLEAN NOT NULL DEFAULT false,
  via_api BOOLEAN NOT NULL DEFAULT true,
  attempts INTEGER NOT NULL DEFAULT 0,
  created_at TIMESTAMPTZ NOT NULL,
  started_at TIMESTAMPTZ,
  completed_at TIMESTAMPTZ,
  inputs_expire_at TIMESTAMPTZ NOT NULL,
  output_expires_at TIMESTAMPTZ
);
CREATE INDEX jobs_history ON jobs (account_id, created_at DESC, id DESC);
CREATE INDEX jobs_batch ON jobs (batch_id) WHERE batch_id IS NOT NULL;
CREATE INDEX jobs_unfinished ON jobs (status) WHERE status IN ('waiting', 'active');
CREATE INDEX jobs_inputs_due ON jobs (inputs_expire_at) WHERE json_array_length(inputs) > 0;
CREATE INDEX jobs_outputs_due ON jobs (output_expires_at) WHERE output IS NOT NULL;
CREATE INDEX jobs_finished ON jobs (completed_at) WHERE completed_at IS NOT NULL;
CREATE INDEX jobs_results ON jobs (created_at) WHERE result IS NOT NULL;
CREATE INDEX jobs_download_tokens ON jobs (completed_at) WHERE download_token_hash IS NOT NULL;

CREATE TABLE batches (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  tool TEXT,
  total INTEGER NOT NULL,
  errors JSON NOT NULL,
  created_at TIMESTAMPTZ NOT NULL
);

CREATE TABLE trials (
  account_id TEXT NOT NULL REFERENCES accounts(id),
  tool TEXT NOT NULL,
  claimed_at TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (account_id, tool)
);

CREATE TABLE download_tokens (
  hash TEXT PRIMARY KEY,
  job_id TEXT NOT NULL REFERENCES jobs(id),
  kind TEXT NOT NULL,
  reusable BOOLEAN NOT NULL,
  expires_at TIMESTAMPTZ NOT NULL,
  consumed_at TIMESTAMPTZ,
  created_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX download_tokens_expiry ON download_tokens (expires_at);

CREATE TABLE usage (
  account_id TEXT NOT NULL REFERENCES accounts(id),
  period TEXT NOT NULL,
  used INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (account_id, period)
);

CREATE TABLE rate_windows (
  key TEXT NOT NULL,
  window_start BIGINT NOT NULL,
  count INTEGER NOT NULL,
  PRIMARY KEY (key, window_start)
);
CREATE INDEX rate_windows_start ON rate_windows (window_start);

CREATE TABLE webhook_endpoints (
  id TEXT COLLATE "C" PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  url TEXT NOT NULL,
  description TEXT,
  events JSON,
  secret TEXT NOT NULL,
  previous_secret TEXT,
  previous_expires_at TIMESTAMPTZ,
  disabled_at TIMESTAMPTZ,
  disabled_reason TEXT,
  failing_since TIMESTAMPTZ,
  created_at TIMESTAMPTZ NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX webhook_endpoints_account ON webhook_endpoints (account_id, created_at);

CREATE TABLE webhook_account_secrets (
  account_id TEXT PRIMARY KEY REFERENCES accounts(id),
  secret TEXT NOT NULL,
  previous_secret TEXT,
  previous_expires_at TIMESTAMPTZ,
  created_at TIMESTAMPTZ NOT NULL
);

CREATE TABLE webhook_deliveries (
  id TEXT COLLATE "C" PRIMARY KEY,
  account_id TEXT NOT NULL,
  event_key TEXT NOT NULL,
  target TEXT NOT NULL,
  type TEXT NOT NULL,
  subject_id TEXT NOT NULL,
  endpoint_id TEXT,
  url TEXT NOT NULL,
  status TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at TIMESTAMPTZ,
  last_status_code INTEGER,
  last_error TEXT,
  created_at TIMESTAMPTZ NOT NULL,
  completed_at TIMESTAMPTZ,
  UNIQUE (event_key, target)
);
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (created_at) WHERE status = 'pending';

CREATE TABLE webhook_attempts (
  seq BIGSERIAL PRIMARY KEY,
  delivery_id TEXT NOT NULL,
  endpoint_id TEXT,
  type TEXT NOT NULL,
  at TIMESTAMPTZ NOT NULL,
  status_code INTEGER,
  latency_ms INTEGER NOT NULL,
  error TEXT
);
CREATE INDEX webhook_attempts_endpoint ON webhook_attempts (endpoint_id, seq DESC);

CREATE TABLE webhook_targets (
  subject_id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL,
  url TEXT NOT NULL,
  created_at TIMESTAMPTZ NOT NULL
);
`,
  // 2: pipeline jobs carry their steps, and exported jobs their export's state.
  `
ALTER TABLE jobs ADD COLUMN pipeline JSON;
ALTER TABLE jobs ADD COLUMN export_state JSON;
`,
  // 3: a batch exported to S3 carries its export's state.
  `
ALTER TABLE batches ADD COLUMN export_state JSON;
`,
  // 4: the export lease sweep (listOpenExports) reads the open exports through an index of them
  // alone; its condition is the query's (OPEN_EXPORT in core/store/sql/rows.ts).
  `
CREATE INDEX jobs_open_exports ON jobs (id)
  WHERE export_state IS NOT NULL AND (export_state ->> 'status') IN ('pending', 'uploading');
CREATE INDEX batches_open_exports ON batches (id)
  WHERE export_state IS NOT NULL AND (export_state ->> 'status') IN ('pending', 'uploading');
`,
];
