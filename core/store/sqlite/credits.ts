/** Credits: usage per period, free trials and request-rate windows in SQLite. */
import type Database from 'better-sqlite3';
import type {
  UsageRecord,
  ChargeResult,
  TrialRepo,
  UsageRepo,
  RateRepo,
  CreditsStore,
  FailureRefund,
} from '../types.js';
import { type Row, ms } from '../sql/rows.js';

/** The writes that give a charge back: a refund, a free try released, or what a failed job gives back. */
export function givingBack(db: Database.Database) {
  const refund = db.prepare('UPDATE usage SET used = MAX(0, used - ?) WHERE account_id = ? AND period = ?');
  const release = db.prepare('DELETE FROM trials WHERE account_id = ? AND tool = ?');
  return {
    refund(accountId: string, period: string, cost: number) {
      refund.run(cost, accountId, period);
    },
    release(accountId: string, tool: string) {
      release.run(accountId, tool);
    },
    /** Inside the caller's transaction (jobs.fail). */
    give(accountId: string, given: FailureRefund) {
      if (given && 'credits' in given) refund.run(given.credits, accountId, given.period);
      else if (given) release.run(accountId, given.trialOf);
    },
  };
}

function trialRepo(db: Database.Database): TrialRepo {
  const claim = db.prepare('INSERT INTO trials (account_id, tool, claimed_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING');
  const { release } = givingBack(db);
  return {
    async claim(accountId, tool, at) {
      return claim.run(accountId, tool, ms(at)).changes > 0;
    },
    async release(accountId, tool) {
      release(accountId, tool);
    },
  };
}

/** The conditional charge (usage.charge) as one synchronous call: jobs.createCharged runs it inside its transaction. */
export function charging(db: Database.Database) {
  const ensure = db.prepare('INSERT INTO usage (account_id, period, used) VALUES (?, ?, 0) ON CONFLICT DO NOTHING');
  const get = db.prepare('SELECT used FROM usage WHERE account_id = ? AND period = ?');
  // The condition and the increment are one statement: concurrent charges cannot both pass.
  const charge = db.prepare(`UPDATE usage SET used = used + @cost
    WHERE account_id = @accountId AND period = @period AND (@limit IS NULL OR used + @cost <= @limit) RETURNING used`);
  const used = (accountId: string, period: string) =>
    Number((get.get(accountId, period) as Row | undefined)?.used ?? 0);
  return {
    used,
    charge(accountId: string, period: string, cost: number, limit: number | null): ChargeResult {
      ensure.run(accountId, period);
      const row = charge.get({ accountId, period, cost, limit }) as Row | undefined;
      return row ? { ok: true, used: Number(row.used) } : { ok: false, used: used(accountId, period) };
    },
  };
}

function usageRepo(db: Database.Database): UsageRepo {
  const { used, charge } = charging(db);
  const { refund } = givingBack(db);
  const set = db.prepare(`INSERT INTO usage (account_id, period, used) VALUES (?, ?, ?)
    ON CONFLICT (account_id, period) DO UPDATE SET used = excluded.used`);
  return {
    async get(accountId, period): Promise<UsageRecord> {
      return { accountId, period, used: used(accountId, period) };
    },
    async charge(accountId, period, cost, limit) {
      return charge(accountId, period, cost, limit);
    },
    async refund(accountId, period, cost) {
      refund(accountId, period, cost);
    },
    async set(accountId, period, value) {
      set.run(accountId, period, value);
    },
  };
}

function rateRepo(db: Database.Database): RateRepo {
  const hit = db.prepare(`INSERT INTO rate_windows (key, window_start, count) VALUES (?, ?, 1)
    ON CONFLICT (key, window_start) DO UPDATE SET count = count + 1 RETURNING count`);
  const prune = db.prepare('DELETE FROM rate_windows WHERE window_start < ?');
  return {
    async hit(key, windowStart) {
      return Number((hit.get(key, windowStart) as Row).count);
    },
    async deleteBefore(windowStart) {
      prune.run(windowStart);
    },
  };
}

export function sqliteCredits(db: Database.Database): CreditsStore {
  return { usage: usageRepo(db), trials: trialRepo(db), rates: rateRepo(db) };
}
