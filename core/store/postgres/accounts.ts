/** Accounts, API keys, logins, sessions and e-mail links in PostgreSQL. */
import type pg from 'pg';
import type { AccountRepo, AccountsStore, EmailTokenRepo, KeyRepo, LoginRepo, SessionRepo } from '../types.js';
import {
  ACCOUNT_COLUMNS,
  accountFromRow,
  emailTokenFromRow,
  keyFromRow,
  loginFromRow,
  patchEntries,
  sessionFromRow,
} from '../sql/rows.js';
import { all, changed, first, setClause } from './db.js';

function accountRepo(pool: pg.Pool): AccountRepo {
  return {
    async create(a) {
      await pool.query(
        `INSERT INTO accounts (id, plan, email, email_verified, overage_enabled, credits_included, requests_per_minute,
          created_at)
          VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [a.id, a.plan, a.email, a.emailVerified, a.overageEnabled, a.creditsIncluded, a.requestsPerMinute, a.createdAt],
      );
    },
    async get(id) {
      const row = await first(pool, 'SELECT * FROM accounts WHERE id = $1', [id]);
      return row ? accountFromRow(row) : null;
    },
    async update(id, patch) {
      const entries = patchEntries(patch, ACCOUNT_COLUMNS);
      if (!entries.length) return;
      await pool.query(`UPDATE accounts SET ${setClause(entries, ACCOUNT_COLUMNS)} WHERE id = $${entries.length + 1}`, [
        ...entries.map(([, v]) => v),
        id,
      ]);
    },
  };
}

function keyRepo(pool: pg.Pool): KeyRepo {
  return {
    async create(k) {
      await pool.query(
        'INSERT INTO api_keys (id, account_id, hash, prefix, created_at, name, last_used_at) VALUES ($1, $2, $3, $4, ' +
          '$5, $6, $7)',
        [k.id, k.accountId, k.hash, k.prefix, k.createdAt, k.name ?? null, k.lastUsedAt ?? null],
      );
    },
    async revokeById(accountId, id, at) {
      return (
        (await changed(
          pool,
          'UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND account_id = $3 AND revoked_at IS NULL',
          [at, id, accountId],
        )) > 0
      );
    },
    async markUsed(id, at, staleBefore) {
      await pool.query(
        'UPDATE api_keys SET last_used_at = $1 WHERE id = $2 AND (last_used_at IS NULL OR last_used_at < $3)',
        [at, id, staleBefore],
      );
    },
    async findActiveByHash(hash) {
      const row = await first(pool, 'SELECT * FROM api_keys WHERE hash = $1 AND revoked_at IS NULL', [hash]);
      return row ? keyFromRow(row) : null;
    },
    async listByAccount(accountId) {
      return (await all(pool, 'SELECT * FROM api_keys WHERE account_id = $1 ORDER BY created_at, id', [accountId])).map(
        keyFromRow,
      );
    },
    async revokeByHash(hash, at) {
      return (
        (await changed(pool, 'UPDATE api_keys SET revoked_at = $1 WHERE hash = $2 AND revoked_at IS NULL', [
          at,
          hash,
        ])) > 0
      );
    },
  };
}

function loginRepo(pool: pg.Pool): LoginRepo {
  return {
    async create(l) {
      const inserted = await changed(
        pool,
        'INSERT INTO logins (email, account_id, password_hash, created_at, updated_at) VALUES ($1, $2, $3, $4, $5) ' +
          'ON CONFLICT (email) DO NOTHING',
        [l.email, l.accountId, l.passwordHash, l.createdAt, l.updatedAt],
      );
      return inserted > 0;
    },
    async findByEmail(email) {
      const row = await first(pool, 'SELECT * FROM logins WHERE email = $1', [email]);
      return row ? loginFromRow(row) : null;
    },
    async getByAccount(accountId) {
      const row = await first(pool, 'SELECT * FROM logins WHERE account_id = $1', [accountId]);
      return row ? loginFromRow(row) : null;
    },
    async setPasswordHash(accountId, passwordHash, at) {
      return (
        (await changed(pool, 'UPDATE logins SET password_hash = $1, updated_at = $2 WHERE account_id = $3', [
          passwordHash,
          at,
          accountId,
        ])) > 0
      );
    },
  };
}

function sessionRepo(pool: pg.Pool): SessionRepo {
  return {
    async create(s) {
      await pool.query(
        'INSERT INTO sessions (hash, account_id, csrf_hash, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)',
        [s.hash, s.accountId, s.csrfHash, s.createdAt, s.expiresAt],
      );
    },
    async findActive(hash, now) {
      const row = await first(pool, 'SELECT * FROM sessions WHERE hash = $1 AND expires_at > $2', [hash, now]);
      return row ? sessionFromRow(row) : null;
    },
    async extend(hash, expiresAt) {
      await pool.query('UPDATE sessions SET expires_at = GREATEST(expires_at, $1) WHERE hash = $2', [expiresAt, hash]);
    },
    async delete(hash) {
      await pool.query('DELETE FROM sessions WHERE hash = $1', [hash]);
    },
    async deleteByAccount(accountId) {
      return changed(pool, 'DELETE FROM sessions WHERE account_id = $1', [accountId]);
    },
    async deleteExpired(now) {
      return changed(pool, 'DELETE FROM sessions WHERE expires_at <= $1', [now]);
    },
  };
}

function emailTokenRepo(pool: pg.Pool): EmailTokenRepo {
  return {
    async create(t) {
      await pool.query(
        'INSERT INTO email_tokens (hash, account_id, email, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)',
        [t.hash, t.accountId, t.email, t.createdAt, t.expiresAt],
      );
    },
    async consume(hash, now) {
      // One statement takes the row: two clicks on the same link cannot both verify.
      const row = await first(pool, 'DELETE FROM email_tokens WHERE hash = $1 RETURNING *', [hash]);
      const token = row ? emailTokenFromRow(row) : null;
      return token && token.expiresAt > now ? token : null;
    },
    async deleteByAccount(accountId) {
      return changed(pool, 'DELETE FROM email_tokens WHERE account_id = $1', [accountId]);
    },
    async deleteExpired(now) {
      return changed(pool, 'DELETE FROM email_tokens WHERE expires_at <= $1', [now]);
    },
  };
}

export function postgresAccounts(pool: pg.Pool): AccountsStore {
  return {
    accounts: accountRepo(pool),
    keys: keyRepo(pool),
    logins: loginRepo(pool),
    sessions: sessionRepo(pool),
    emailTokens: emailTokenRepo(pool),
  };
}
