/** Download links and signed URLs (stored as token hashes) in SQLite. */
import type Database from 'better-sqlite3';
import type { TokenRepo, LinksStore } from '../types.js';
import { type Row, ms, tokenFromRow } from '../sql/rows.js';

function tokenRepo(db: Database.Database): TokenRepo {
  const insert = db.prepare(
    'INSERT INTO download_tokens (hash, job_id, kind, reusable, expires_at, created_at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const byHash = db.prepare('SELECT * FROM download_tokens WHERE hash = ?');
  const consume = db.prepare('UPDATE download_tokens SET consumed_at = ? WHERE hash = ? AND consumed_at IS NULL');
  const expired = db.prepare('DELETE FROM download_tokens WHERE expires_at <= ?');
  return {
    async create(t) {
      insert.run(t.hash, t.jobId, t.kind, t.reusable ? 1 : 0, ms(t.expiresAt), ms(t.createdAt));
    },
    async get(hash) {
      const row = byHash.get(hash) as Row | undefined;
      return row ? tokenFromRow(row) : null;
    },
    async consume(hash, at) {
      return consume.run(ms(at), hash).changes > 0;
    },
    async deleteExpired(now) {
      return expired.run(ms(now)).changes;
    },
  };
}

export function sqliteLinks(db: Database.Database): LinksStore {
  return { tokens: tokenRepo(db) };
}
