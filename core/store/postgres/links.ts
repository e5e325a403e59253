/** Download links and signed URLs (stored as token hashes) in PostgreSQL. */
import type pg from 'pg';
import type { LinksStore, TokenRepo } from '../types.js';
import { tokenFromRow } from '../sql/rows.js';
import { changed, first } from './db.js';

function tokenRepo(pool: pg.Pool): TokenRepo {
  return {
    async create(t) {
      await pool.query(
        'INSERT INTO download_tokens (hash, job_id, kind, reusable, expires_at, created_at) VALUES ($1, $2, $3, $4, ' +
          '$5, $6)',
        [t.hash, t.jobId, t.kind, t.reusable, t.expiresAt, t.createdAt],
      );
    },
    async get(hash) {
      const row = await first(pool, 'SELECT * FROM download_tokens WHERE hash = $1', [hash]);
      return row ? tokenFromRow(row) : null;
    },
    async consume(hash, at) {
      return (
        (await changed(pool, 'UPDATE download_tokens SET consumed_at = $1 WHERE hash = $2 AND consumed_at IS NULL', [
          at,
          hash,
        ])) > 0
      );
    },
    async deleteExpired(now) {
      return changed(pool, 'DELETE FROM download_tokens WHERE expires_at <= $1', [now]);
    },
  };
}

export function postgresLinks(pool: pg.Pool): LinksStore {
  return { tokens: tokenRepo(pool) };
}
