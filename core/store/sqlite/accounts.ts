/** Accounts, API keys, logins, sessions and e-mail links in SQLite. */
import type Database from 'better-sqlite3';
import type { AccountRepo, KeyRepo, LoginRepo, SessionRepo, EmailTokenRepo, AccountsStore } from '../types.js';
import {
  ACCOUNT_COLUMNS,
  type Row,
  ms,
  patchEntries,
  accountFromRow,
  keyFromRow,
  loginFromRow,
  sessionFromRow,
  emailTokenFromRow,
} from '../sql/rows.js';

function accountRepo(db: Database.Database): AccountRepo {
  const insert = db.prepare(`INSERT INTO accounts (id, plan, email, email_verified, overage_enabled, credits_included,
      requests_per_minute, created_at)
    VALUES (@id, @plan, @email, @emailVerified, @overageEnabled, @creditsIncluded, @requestsPerMinute, @createdAt)`);
  const byId = db.prepare('SELECT * FROM accounts WHERE id = ?');
  return {
    async create(a) {
      insert.run({
        ...a,
        emailVerified: a.emailVerified ? 1 : 0,
        overageEnabled: a.overageEnabled ? 1 : 0,
        createdAt: ms(a.createdAt),
      });
    },
    async get(id) {
      const row = byId.get(id) as Row | undefined;
      return row ? accountFromRow(row) : null;
    },
    async update(id, patch) {
      const entries = patchEntries(patch, ACCOUNT_COLUMNS);
      if (!entries.length) return;
      const values = entries.map(([, v]) => (typeof v === 'boolean' ? (v ? 1 : 0) : v));
      db.prepare(
        `UPDATE accounts SET ${entries.map(([k]) => `${ACCOUNT_COLUMNS[k]} = ?`).join(', ')} WHERE id = ?`,
      ).run(...values, id);
    },
  };
}

function keyRepo(db: Database.Database): KeyRepo {
  const insert = db.prepare(
    'INSERT INTO api_keys (id, account_id, hash, prefix, created_at, name, last_used_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  const byHash = db.prepare('SELECT * FROM api_keys WHERE hash = ? AND revoked_at IS NULL');
  const byAccount = db.prepare('SELECT * FROM api_keys WHERE account_id = ? ORDER BY created_at, id');
  const revoke = db.prepare('UPDATE api_keys SET revoked_at = ? WHERE hash = ? AND revoked_at IS NULL');
  const revokeById = db.prepare(
    'UPDATE api_keys SET revoked_at = ? WHERE id = ? AND account_id = ? AND revoked_at IS NULL',
  );
  const markUsed = db.prepare(
    'UPDATE api_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)',
  );
  return {
    async create(k) {
      insert.run(k.id, k.accountId, k.hash, k.prefix, ms(k.createdAt), k.name ?? null, ms(k.lastUsedAt));
    },
    async revokeById(accountId, id, at) {
      return revokeById.run(ms(at), id, accountId).changes > 0;
    },
    async markUsed(id, at, staleBefore) {
      markUsed.run(ms(at), id, ms(staleBefore));
    },
    async findActiveByHash(hash) {
      const row = byHash.get(hash) as Row | undefined;
      return row ? keyFromRow(row) : null;
    },
    async listByAccount(accountId) {
      return (byAccount.all(accountId) as Row[]).map(keyFromRow);
    },
    async revokeByHash(hash, at) {
      return revoke.run(ms(at), hash).changes > 0;
    },
  };
}

function loginRepo(db: Database.Database): LoginRepo {
  const insert =
    db.prepare(`INSERT INTO logins (email, account_id, password_hash, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (email) DO NOTHING`);
  const byEmail = db.prepare('SELECT * FROM logins WHERE email = ?');
  const byAccount = db.prepare('SELECT * FROM logins WHERE account_id = ?');
  const setHash = db.prepare('UPDATE logins SET password_hash = ?, updated_at = ? WHERE account_id = ?');
  return {
    async create(l) {
      return insert.run(l.email, l.accountId, l.passwordHash, ms(l.createdAt), ms(l.updatedAt)).changes > 0;
    },
    async findByEmail(email) {
      const row = byEmail.get(email) as Row | undefined;
      return row ? loginFromRow(row) : null;
    },
    async getByAccount(accountId) {
      const row = byAccount.get(accountId) as Row | undefined;
      return row ? loginFromRow(row) : null;
    },
    async setPasswordHash(accountId, passwordHash, at) {
      return setHash.run(passwordHash, ms(at), accountId).changes > 0;
    },
  };
}

function sessionRepo(db: Database.Database): SessionRepo {
  const insert = db.prepare(
    'INSERT INTO sessions (hash, account_id, csrf_hash, created_at, expires_at) VALUES (?, ?, ?, ?, ?)',
  );
  const active = db.prepare('SELECT * FROM sessions WHERE hash = ? AND expires_at > ?');
  const extend = db.prepare('UPDATE sessions SET expires_at = MAX(expires_at, ?) WHERE hash = ?');
  const remove = db.prepare('DELETE FROM sessions WHERE hash = ?');
  const removeByAccount = db.prepare('DELETE FROM sessions WHERE account_id = ?');
  const expired = db.prepare('DELETE FROM sessions WHERE expires_at <= ?');
  return {
    async create(s) {
      insert.run(s.hash, s.accountId, s.csrfHash, ms(s.createdAt), ms(s.expiresAt));
    },
    async findActive(hash, now) {
      const row = active.get(hash, ms(now)) as Row | undefined;
      return row ? sessionFromRow(row) : null;
    },
    async extend(hash, expiresAt) {
      extend.run(ms(expiresAt), hash);
    },
    async delete(hash) {
      remove.run(hash);
    },
    async deleteByAccount(accountId) {
      return removeByAccount.run(accountId).changes;
    },
    async deleteExpired(now) {
      return expired.run(ms(now)).changes;
    },
  };
}

function emailTokenRepo(db: Database.Database): EmailTokenRepo {
  const insert = db.prepare(
    'INSERT INTO email_tokens (hash, account_id, email, created_at, expires_at) VALUES (?, ?, ?, ?, ?)',
  );
  // One statement takes the row: two clicks on the same link cannot both verify.
  const take = db.prepare('DELETE FROM email_tokens WHERE hash = ? RETURNING *');
  const removeByAccount = db.prepare('DELETE FROM email_tokens WHERE account_id = ?');
  const expired = db.prepare('DELETE FROM email_tokens WHERE expires_at <= ?');
  return {
    async create(t) {
      insert.run(t.hash, t.accountId, t.email, ms(t.createdAt), ms(t.expiresAt));
    },
    async consume(hash, now) {
      const row = take.get(hash) as Row | undefined;
      const token = row ? emailTokenFromRow(row) : null;
      return token && token.expiresAt > now ? token : null;
    },
    async deleteByAccount(accountId) {
      return removeByAccount.run(accountId).changes;
    },
    async deleteExpired(now) {
      return expired.run(ms(now)).changes;
    },
  };
}

export function sqliteAccounts(db: Database.Database): AccountsStore {
  return {
    accounts: accountRepo(db),
    keys: keyRepo(db),
    logins: loginRepo(db),
    sessions: sessionRepo(db),
    emailTokens: emailTokenRepo(db),
  };
}
