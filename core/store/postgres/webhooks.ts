/** Webhooks: endpoints, account secrets, deliveries, attempt logs and override targets in PostgreSQL. */
import type pg from 'pg';
import type {
  WebhookAccountSecretRepo,
  WebhookAttemptRepo,
  WebhookDeliveryRepo,
  WebhookEndpointRepo,
  WebhooksStore,
  WebhookTargetRepo,
} from '../types.js';
import { deliveryTarget } from '../types.js';
import {
  ENDPOINT_COLUMNS,
  attemptFromRow,
  deliveryFromRow,
  endpointFromRow,
  patchEntries,
  webhookSecretFromRow,
  webhookTargetFromRow,
} from '../sql/rows.js';
import { all, changed, first, setClause, transaction } from './db.js';

function webhookEndpointRepo(pool: pg.Pool): WebhookEndpointRepo {
  const value = (v: unknown) => (Array.isArray(v) ? JSON.stringify(v) : v);
  return {
    async create(e) {
      await pool.query(
        `INSERT INTO webhook_endpoints (id, account_id, url, description, events, secret, previous_secret,
          previous_expires_at,
            disabled_at, disabled_reason, failing_since, created_at, updated_at)
          VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
        [
          e.id,
          e.accountId,
          e.url,
          e.description,
          e.events ? JSON.stringify(e.events) : null,
          e.secret,
          e.previousSecret,
          e.previousExpiresAt,
          e.disabledAt,
          e.disabledReason,
          e.failingSince,
          e.createdAt,
          e.updatedAt,
        ],
      );
    },
    async get(id) {
      const row = await first(pool, 'SELECT * FROM webhook_endpoints WHERE id = $1', [id]);
      return row ? endpointFromRow(row) : null;
    },
    async listByAccount(accountId) {
      return (
        await all(pool, 'SELECT * FROM webhook_endpoints WHERE account_id = $1 ORDER BY created_at, id', [accountId])
      ).map(endpointFromRow);
    },
    async update(id, patch) {
      const entries = patchEntries(patch, ENDPOINT_COLUMNS);
      if (!entries.length) return;
      await pool.query(
        `UPDATE webhook_endpoints SET ${setClause(entries, ENDPOINT_COLUMNS)} WHERE id = $${entries.length + 1}`,
        [...entries.map(([, v]) => value(v)), id],
      );
    },
    async delete(id) {
      return transaction(pool, async (client) => {
        await client.query('DELETE FROM webhook_attempts WHERE endpoint_id = $1', [id]);
        return (await changed(client, 'DELETE FROM webhook_endpoints WHERE id = $1', [id])) > 0;
      });
    },
  };
}

function webhookSecretRepo(pool: pg.Pool): WebhookAccountSecretRepo {
  return {
    async get(accountId) {
      const row = await first(pool, 'SELECT * FROM webhook_account_secrets WHERE account_id = $1', [accountId]);
      return row ? webhookSecretFromRow(row) : null;
    },
    async put(r) {
      await pool.query(
        `INSERT INTO webhook_account_secrets (account_id, secret, previous_secret, previous_expires_at, created_at)
          VALUES ($1, $2, $3, $4, $5)
          ON CONFLICT (account_id) DO UPDATE SET secret = excluded.secret, previous_secret = excluded.previous_secret,
            previous_expires_at = excluded.previous_expires_at, created_at = excluded.created_at`,
        [r.accountId, r.secret, r.previousSecret, r.previousExpiresAt, r.createdAt],
      );
    },
  };
}

function webhookDeliveryRepo(pool: pg.Pool): WebhookDeliveryRepo {
  return {
    async create(d) {
      const inserted = await changed(
        pool,
        `INSERT INTO webhook_deliveries (id, account_id, event_key, target, type, subject_id, endpoint_id, url, status,
          next_attempt_at, created_at)
          VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'pending', $9, $10) ON CONFLICT (event_key, target) DO NOTHING`,
        [
          d.id,
          d.accountId,
          d.eventKey,
          deliveryTarget(d),
          d.type,
          d.subjectId,
          d.endpointId,
          d.url,
          d.nextAttemptAt,
          d.createdAt,
        ],
      );
      return inserted > 0;
    },
    async get(id) {
      const row = await first(pool, 'SELECT * FROM webhook_deliveries WHERE id = $1', [id]);
      return row ? deliveryFromRow(row) : null;
    },
    async retryLater(id, a) {
      const count = await changed(
        pool,
        `UPDATE webhook_deliveries SET attempts = attempts + 1, last_status_code = $1, last_error = $2, ` +
          `next_attempt_at = $3 WHERE id = $4 AND status = 'pending'`,
        [a.statusCode, a.error, a.nextAttemptAt, id],
      );
      return count > 0;
    },
    async finish(id, o) {
      const count = await changed(
        pool,
        `UPDATE webhook_deliveries SET status = $1, attempts = attempts + 1, last_status_code = $2, last_error = $3,
          next_attempt_at = NULL, completed_at = $4
          WHERE id = $5 AND status = 'pending'`,
        [o.status, o.statusCode, o.error, o.at, id],
      );
      return count > 0;
    },
    async listPending() {
      return (await all(pool, `SELECT * FROM webhook_deliveries WHERE status = 'pending' ORDER BY created_at, id`)).map(
        deliveryFromRow,
      );
    },
  };
}

function webhookAttemptRepo(pool: pg.Pool): WebhookAttemptRepo {
  return {
    async add(a, keep) {
      await transaction(pool, async (client) => {
        await client.query(
          'INSERT INTO webhook_attempts (delivery_id, endpoint_id, type, at, status_code, latency_ms, error) VALUES ' +
            '($1, $2, $3, $4, $5, $6, $7)',
          [a.deliveryId, a.endpointId, a.type, a.at, a.statusCode, a.latencyMs, a.error],
        );
        // Attempts to override URLs belong to no endpoint's log: kept a day, for operators.
        if (a.endpointId === null)
          await client.query('DELETE FROM webhook_attempts WHERE endpoint_id IS NULL AND at < $1', [
            new Date(a.at.getTime() - 24 * 3600_000),
          ]);
        else {
          await client.query(
            `DELETE FROM webhook_attempts WHERE endpoint_id = $1 AND seq NOT IN
              (SELECT seq FROM webhook_attempts WHERE endpoint_id = $1 ORDER BY seq DESC LIMIT $2)`,
            [a.endpointId, keep],
          );
        }
      });
    },
    async listByEndpoint(endpointId, limit) {
      return (
        await all(pool, 'SELECT * FROM webhook_attempts WHERE endpoint_id = $1 ORDER BY seq DESC LIMIT $2', [
          endpointId,
          limit,
        ])
      ).map(attemptFromRow);
    },
  };
}

function webhookTargetRepo(pool: pg.Pool): WebhookTargetRepo {
  return {
    async put(t) {
      await pool.query(
        'INSERT INTO webhook_targets (subject_id, account_id, url, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT ' +
          '(subject_id) DO UPDATE SET url = excluded.url',
        [t.subjectId, t.accountId, t.url, t.createdAt],
      );
    },
    async get(subjectId) {
      const row = await first(pool, 'SELECT * FROM webhook_targets WHERE subject_id = $1', [subjectId]);
      return row ? webhookTargetFromRow(row) : null;
    },
  };
}

export function postgresWebhooks(pool: pg.Pool): WebhooksStore {
  return {
    webhookEndpoints: webhookEndpointRepo(pool),
    webhookSecrets: webhookSecretRepo(pool),
    webhookDeliveries: webhookDeliveryRepo(pool),
    webhookAttempts: webhookAttemptRepo(pool),
    webhookTargets: webhookTargetRepo(pool),
  };
}
