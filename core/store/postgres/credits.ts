/** Credits: usage per period, free trials and request-rate windows in PostgreSQL. */
import type pg from 'pg';
import type { ChargeResult, CreditsStore, FailureRefund, RateRepo, TrialRepo, UsageRepo } from '../types.js';
import { type Queryable, changed, first } from './db.js';

const REFUND = 'UPDATE usage SET used = GREATEST(0, used - $1) WHERE account_id = $2 AND period = $3';
const RELEASE_TRIAL = 'DELETE FROM trials WHERE account_id = $1 AND tool = $2';

/** What a failed job gives back (FailureRefund), on `db`: jobs.fail runs it inside its transaction. */
export async function giveBack(db: Queryable, accountId: string, given: FailureRefund): Promise<void> {
  if (given && 'credits' in given) await db.query(REFUND, [given.credits, accountId, given.period]);
  else if (given) await db.query(RELEASE_TRIAL, [accountId, given.trialOf]);
}

/** The conditional charge of `cost` (usage.charge), on `db`: jobs.createCharged runs it inside its transaction. */
export async function chargeUsage(
  db: Queryable,
  accountId: string,
  period: string,
  cost: number,
  limit: number | null,
): Promise<ChargeResult> {
  await db.query('INSERT INTO usage (account_id, period, used) VALUES ($1, $2, 0) ON CONFLICT DO NOTHING', [
    accountId,
    period,
  ]);
  // The condition and the increment are one statement: a concurrent charge waits for the row's
  // lock, then PostgreSQL checks the condition again against the row as the other left it.
  const row = await first(
    db,
    'UPDATE usage SET used = used + $1 WHERE account_id = $2 AND period = $3 AND ($4::integer IS NULL OR used + ' +
      '$1 <= $4::integer) RETURNING used',
    [cost, accountId, period, limit],
  );
  if (row) return { ok: true, used: Number(row.used) };
  const current = await first(db, 'SELECT used FROM usage WHERE account_id = $1 AND period = $2', [accountId, period]);
  return { ok: false, used: Number(current?.used ?? 0) };
}

function trialRepo(pool: pg.Pool): TrialRepo {
  return {
    async claim(accountId, tool, at) {
      return (
        (await changed(
          pool,
          'INSERT INTO trials (account_id, tool, claimed_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING',
          [accountId, tool, at],
        )) > 0
      );
    },
    async release(accountId, tool) {
      await pool.query(RELEASE_TRIAL, [accountId, tool]);
    },
  };
}

function usageRepo(pool: pg.Pool): UsageRepo {
  const used = async (accountId: string, period: string) =>
    Number(
      (await first(pool, 'SELECT used FROM usage WHERE account_id = $1 AND period = $2', [accountId, period]))?.used ??
        0,
    );
  return {
    async get(accountId, period) {
      return { accountId, period, used: await used(accountId, period) };
    },
    async charge(accountId, period, cost, limit) {
      return chargeUsage(pool, accountId, period, cost, limit);
    },
    async refund(accountId, period, cost) {
      await pool.query(REFUND, [cost, accountId, period]);
    },
    async set(accountId, period, value) {
      await pool.query(
        'INSERT INTO usage (account_id, period, used) VALUES ($1, $2, $3) ON CONFLICT (account_id, period) DO UPDATE ' +
          'SET used = excluded.used',
        [accountId, period, value],
      );
    },
  };
}

function rateRepo(pool: pg.Pool): RateRepo {
  return {
    async hit(key, windowStart) {
      const row = await first(
        pool,
        `INSERT INTO rate_windows (key, window_start, count) VALUES ($1, $2, 1)
          ON CONFLICT (key, window_start) DO UPDATE SET count = rate_windows.count + 1 RETURNING count`,
        [key, windowStart],
      );
      return Number(row!.count);
    },
    async deleteBefore(windowStart) {
      await pool.query('DELETE FROM rate_windows WHERE window_start < $1', [windowStart]);
    },
  };
}

export function postgresCredits(pool: pg.Pool): CreditsStore {
  return { usage: usageRepo(pool), trials: trialRepo(pool), rates: rateRepo(pool) };
}
