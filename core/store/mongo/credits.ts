/** Credits: usage per period, free trials and request-rate windows in MongoDB. */
import { MongoServerError, type ClientSession, type Collection, type Db } from 'mongodb';
import type { ChargeResult, TrialRepo, UsageRepo, RateRepo, CreditsStore, FailureRefund } from '../types.js';
import { DUPLICATE_KEY, retryOnDuplicateKey } from './documents.js';
import { COLLECTIONS, type RateDoc, type TrialDoc, type UsageDoc } from './schema.js';

function trialRepo(trials: Collection<TrialDoc>): TrialRepo {
  return {
    async claim(accountId, tool, at) {
      // The unique (accountId, tool) index decides between concurrent claims: one insert wins.
      try {
        await trials.insertOne({ accountId, tool, claimedAt: at });
        return true;
      } catch (err) {
        if (err instanceof MongoServerError && err.code === DUPLICATE_KEY) return false;
        throw err;
      }
    },
    async release(accountId, tool) {
      await trials.deleteOne({ accountId, tool });
    },
  };
}

/** Takes `cost` off the period's usage, never below zero (an update pipeline: one write). */
export const refundUpdate = (cost: number) => [{ $set: { used: { $max: [0, { $subtract: ['$used', cost] }] } } }];

/** What a failed job gives back (FailureRefund), in `session`'s transaction when there is one (jobs.fail). */
export function givingBack(db: Db) {
  const usage = db.collection<UsageDoc>(COLLECTIONS.usage);
  const trials = db.collection<TrialDoc>(COLLECTIONS.trials);
  return async (accountId: string, given: FailureRefund, session?: ClientSession): Promise<void> => {
    const options = session ? { session } : {};
    if (given && 'credits' in given) {
      await usage.updateOne({ accountId, period: given.period }, refundUpdate(given.credits), options);
    } else if (given) await trials.deleteOne({ accountId, tool: given.trialOf }, options);
  };
}

/** The period's zero row (a no-op when it exists), so a charge never has to upsert (an upsert inside a transaction
 * that loses a duplicate-key race aborts it). */
export async function ensureUsage(usage: Collection<UsageDoc>, accountId: string, period: string): Promise<void> {
  await retryOnDuplicateKey(() =>
    usage.updateOne({ accountId, period }, { $setOnInsert: { used: 0 } }, { upsert: true }),
  );
}

/**
 * The conditional charge (usage.charge) once the zero row exists, in `session`'s transaction when there is one
 * (jobs.createCharged): the allowance check and the increment are one write, so concurrent charges cannot both pass.
 */
export async function chargeUsage(
  usage: Collection<UsageDoc>,
  accountId: string,
  period: string,
  cost: number,
  limit: number | null,
  session?: ClientSession,
): Promise<ChargeResult> {
  const options = session ? { session } : {};
  const withinLimit = limit === null ? {} : { $expr: { $lte: [{ $add: ['$used', cost] }, limit] } };
  const charged = await usage.findOneAndUpdate(
    { accountId, period, ...withinLimit },
    { $inc: { used: cost } },
    { returnDocument: 'after', ...options },
  );
  if (charged) return { ok: true, used: charged.used };
  return { ok: false, used: (await usage.findOne({ accountId, period }, options))?.used ?? 0 };
}

function usageRepo(usage: Collection<UsageDoc>): UsageRepo {
  const usedIn = async (accountId: string, period: string) => (await usage.findOne({ accountId, period }))?.used ?? 0;
  return {
    async get(accountId, period) {
      return { accountId, period, used: await usedIn(accountId, period) };
    },
    async charge(accountId, period, cost, limit) {
      await ensureUsage(usage, accountId, period);
      return chargeUsage(usage, accountId, period, cost, limit);
    },
    async refund(accountId, period, cost) {
      await usage.updateOne({ accountId, period }, refundUpdate(cost));
    },
    async set(accountId, period, used) {
      await retryOnDuplicateKey(() => usage.updateOne({ accountId, period }, { $set: { used } }, { upsert: true }));
    },
  };
}

function rateRepo(rates: Collection<RateDoc>): RateRepo {
  return {
    async hit(key, windowStart) {
      const doc = await retryOnDuplicateKey(() =>
        rates.findOneAndUpdate(
          { key, windowStart },
          { $inc: { count: 1 }, $setOnInsert: { createdAt: new Date() } },
          { upsert: true, returnDocument: 'after' },
        ),
      );
      if (!doc) throw new Error('rate window upsert returned no document');
      return doc.count;
    },
    async deleteBefore(windowStart) {
      await rates.deleteMany({ windowStart: { $lt: windowStart } });
    },
  };
}

export function mongoCredits(db: Db): CreditsStore {
  return {
    usage: usageRepo(db.collection<UsageDoc>(COLLECTIONS.usage)),
    trials: trialRepo(db.collection<TrialDoc>(COLLECTIONS.trials)),
    rates: rateRepo(db.collection<RateDoc>(COLLECTIONS.rates)),
  };
}
