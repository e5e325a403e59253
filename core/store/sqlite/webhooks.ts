/** Webhooks: endpoints, account secrets, deliveries, attempt logs and override targets in SQLite. */
import type Database from 'better-sqlite3';
import type {
  WebhookEndpointRepo,
  WebhookAccountSecretRepo,
  WebhookDeliveryRepo,
  WebhookAttemptRepo,
  WebhookTargetRepo,
  WebhooksStore,
} from '../types.js';
import { deliveryTarget } from '../types.js';
import {
  ENDPOINT_COLUMNS,
  type Row,
  patchEntries,
  ms,
  endpointFromRow,
  deliveryFromRow,
  webhookSecretFromRow,
  attemptFromRow,
  webhookTargetFromRow,
} from '../sql/rows.js';

function webhookEndpointRepo(db: Database.Database): WebhookEndpointRepo {
  const insert =
    db.prepare(`INSERT INTO webhook_endpoints (id, account_id, url, description, events, secret, previous_secret,
      previous_expires_at,
      disabled_at, disabled_reason, failing_since, created_at, updated_at)
    VALUES (@id, @accountId, @url, @description, @events, @secret, @previousSecret, @previousExpiresAt, @disabledAt,
      @disabledReason, @failingSince, @createdAt, @updatedAt)`);
  const byId = db.prepare('SELECT * FROM webhook_endpoints WHERE id = ?');
  const byAccount = db.prepare('SELECT * FROM webhook_endpoints WHERE account_id = ? ORDER BY created_at, id');
  const remove = db.prepare('DELETE FROM webhook_endpoints WHERE id = ?');
  const removeAttempts = db.prepare('DELETE FROM webhook_attempts WHERE endpoint_id = ?');
  const value = (v: unknown) => (v instanceof Date ? v.getTime() : Array.isArray(v) ? JSON.stringify(v) : v);
  return {
    async create(e) {
      insert.run({
        ...e,
        events: e.events ? JSON.stringify(e.events) : null,
        previousExpiresAt: ms(e.previousExpiresAt),
        disabledAt: ms(e.disabledAt),
        failingSince: ms(e.failingSince),
        createdAt: ms(e.createdAt),
        updatedAt: ms(e.updatedAt),
      });
    },
    async get(id) {
      const row = byId.get(id) as Row | undefined;
      return row ? endpointFromRow(row) : null;
    },
    async listByAccount(accountId) {
      return (byAccount.all(accountId) as Row[]).map(endpointFromRow);
    },
    async update(id, patch) {
      const entries = patchEntries(patch, ENDPOINT_COLUMNS);
      if (!entries.length) return;
      db.prepare(
        `UPDATE webhook_endpoints SET ${entries.map(([k]) => `${ENDPOINT_COLUMNS[k]} = ?`).join(', ')} WHERE id = ?`,
      ).run(...entries.map(([, v]) => value(v)), id);
    },
    async delete(id) {
      return db.transaction(() => {
        removeAttempts.run(id);
        return remove.run(id).changes > 0;
      })();
    },
  };
}

function webhookSecretRepo(db: Database.Database): WebhookAccountSecretRepo {
  const byId = db.prepare('SELECT * FROM webhook_account_secrets WHERE account_id = ?');
  const put = db.prepare(`INSERT INTO webhook_account_secrets (account_id, secret, previous_secret, previous_expires_at,
      created_at) VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (account_id) DO UPDATE SET secret = excluded.secret, previous_secret = excluded.previous_secret,
      previous_expires_at = excluded.previous_expires_at, created_at = excluded.created_at`);
  return {
    async get(accountId) {
      const r = byId.get(accountId) as Row | undefined;
      return r ? webhookSecretFromRow(r) : null;
    },
    async put(r) {
      put.run(r.accountId, r.secret, r.previousSecret, ms(r.previousExpiresAt), ms(r.createdAt));
    },
  };
}

function webhookDeliveryRepo(db: Database.Database): WebhookDeliveryRepo {
  const insert =
    db.prepare(`INSERT INTO webhook_deliveries (id, account_id, event_key, target, type, subject_id, endpoint_id, url,
      status, next_attempt_at, created_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?) ON CONFLICT (event_key, target) DO NOTHING`);
  const byId = db.prepare('SELECT * FROM webhook_deliveries WHERE id = ?');
  const retry = db.prepare(`UPDATE webhook_deliveries SET attempts = attempts + 1, last_status_code = ?, last_error = ?,
      next_attempt_at = ?
    WHERE id = ? AND status = 'pending'`);
  const finish =
    db.prepare(`UPDATE webhook_deliveries SET status = ?, attempts = attempts + 1, last_status_code = ?, last_error =
      ?, next_attempt_at = NULL, completed_at = ?
    WHERE id = ? AND status = 'pending'`);
  const pending = db.prepare(`SELECT * FROM webhook_deliveries WHERE status = 'pending' ORDER BY created_at, id`);
  return {
    async create(d) {
      return (
        insert.run(
          d.id,
          d.accountId,
          d.eventKey,
          deliveryTarget(d),
          d.type,
          d.subjectId,
          d.endpointId,
          d.url,
          ms(d.nextAttemptAt),
          ms(d.createdAt),
        ).changes > 0
      );
    },
    async get(id) {
      const row = byId.get(id) as Row | undefined;
      return row ? deliveryFromRow(row) : null;
    },
    async retryLater(id, a) {
      return retry.run(a.statusCode, a.error, ms(a.nextAttemptAt), id).changes > 0;
    },
    async finish(id, o) {
      return finish.run(o.status, o.statusCode, o.error, ms(o.at), id).changes > 0;
    },
    async listPending() {
      return (pending.all() as Row[]).map(deliveryFromRow);
    },
  };
}

function webhookAttemptRepo(db: Database.Database): WebhookAttemptRepo {
  const insert = db.prepare(
    `INSERT INTO webhook_attempts (delivery_id, endpoint_id, type, at, status_code, latency_ms, error) VALUES (?, ?, ` +
      `?, ?, ?, ?, ?)`,
  );
  const prune = db.prepare(`DELETE FROM webhook_attempts WHERE endpoint_id = ? AND seq NOT IN
    (SELECT seq FROM webhook_attempts WHERE endpoint_id = ? ORDER BY seq DESC LIMIT ?)`);
  const pruneUnowned = db.prepare(`DELETE FROM webhook_attempts WHERE endpoint_id IS NULL AND at < ?`);
  const list = db.prepare('SELECT * FROM webhook_attempts WHERE endpoint_id = ? ORDER BY seq DESC LIMIT ?');
  return {
    async add(a, keep) {
      db.transaction(() => {
        insert.run(a.deliveryId, a.endpointId, a.type, ms(a.at), a.statusCode, a.latencyMs, a.error);
        // Attempts to override URLs belong to no endpoint's log: kept a day, for operators.
        if (a.endpointId === null) pruneUnowned.run(a.at.getTime() - 24 * 3600_000);
        else prune.run(a.endpointId, a.endpointId, keep);
      })();
    },
    async listByEndpoint(endpointId, limit) {
      return (list.all(endpointId, limit) as Row[]).map(attemptFromRow);
    },
  };
}

function webhookTargetRepo(db: Database.Database): WebhookTargetRepo {
  const put = db.prepare(`INSERT INTO webhook_targets (subject_id, account_id, url, created_at) VALUES (?, ?, ?, ?)
    ON CONFLICT (subject_id) DO UPDATE SET url = excluded.url`);
  const byId = db.prepare('SELECT * FROM webhook_targets WHERE subject_id = ?');
  return {
    async put(t) {
      put.run(t.subjectId, t.accountId, t.url, ms(t.createdAt));
    },
    async get(subjectId) {
      const r = byId.get(subjectId) as Row | undefined;
      return r ? webhookTargetFromRow(r) : null;
    },
  };
}

export function sqliteWebhooks(db: Database.Database): WebhooksStore {
  return {
    webhookEndpoints: webhookEndpointRepo(db),
    webhookSecrets: webhookSecretRepo(db),
    webhookDeliveries: webhookDeliveryRepo(db),
    webhookAttempts: webhookAttemptRepo(db),
    webhookTargets: webhookTargetRepo(db),
  };
}
