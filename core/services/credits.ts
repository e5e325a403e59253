/** Credits: atomic charge at acceptance, refunds, balance, monthly periods. */
import { OVERAGE_RATE_PER_1000, type Credits } from '../../schema/index.js';
import { refundOf } from './job-policy.js';
import type { Account, AccountsStore, CreditsStore, FailureRefund, JobRecord, JobsStore } from '../store/types.js';
import type { AccountService } from './accounts.js';
import { billingPeriod, nextResetDate, type Clock } from './clock.js';
import { recordRefund } from '../telemetry/metrics.js';
import { ServiceError } from './errors.js';

export interface Charge {
  period: string;
  cost: number;
  creditsRemaining: number;
}

/**
 * Usage is kept per account per calendar month (UTC), so the monthly reset is the start of a
 * new period: it needs no write at midnight and is right even if the process was down then.
 */
export class CreditService {
  private readonly accountsStore: AccountsStore;
  private readonly jobsStore: JobsStore;
  private readonly creditsStore: CreditsStore;

  constructor(
    ports: { accounts: AccountsStore; jobs: JobsStore; credits: CreditsStore },
    private readonly accounts: AccountService,
    private readonly clock: Clock,
  ) {
    this.accountsStore = ports.accounts;
    this.jobsStore = ports.jobs;
    this.creditsStore = ports.credits;
  }

  /** Charge `cost` now, or 402 when the allowance is used and overage is off. */
  async charge(account: Account, cost: number): Promise<Charge> {
    const included = this.accounts.limitsOf(account).creditsIncluded;
    const period = billingPeriod(this.clock.now());
    const overage = account.overageEnabled && this.accounts.limitsOf(account).plan.overageAvailable;
    const result = await this.creditsStore.usage.charge(account.id, period, cost, overage ? null : included);
    if (!result.ok) throw new ServiceError('PAYMENT_REQUIRED', 'Insufficient API credits');
    return { period, cost, creditsRemaining: Math.max(0, included - result.used) };
  }

  /**
   * Give back a charge no job was recorded for (the job's write failed after the charge: the database restarting,
   * the link to it cut). The database may still be away: retried with back-off for about two minutes, in the
   * background, so the refused request answers at once. A process killed meanwhile still loses the charge; one
   * transaction for the charge and the job is the full fix.
   */
  refundUnrecorded(accountId: string, charge: Charge): void {
    const attempt = async (left: number, delayMs: number): Promise<void> => {
      try {
        await this.creditsStore.usage.refund(accountId, charge.period, charge.cost);
      } catch {
        if (left <= 0) return;
        await new Promise((resolve) => setTimeout(resolve, delayMs).unref());
        return attempt(left - 1, Math.min(delayMs * 2, 20_000));
      }
    };
    void attempt(10, 500);
  }

  /**
   * End a waiting or active job `failed` with `error`, its credits back (a pipeline's: those of the steps that did not
   * finish) or its free try given back, in one store transaction (the only way a job fails). False, giving back
   * nothing, when it had ended already: a second fail, or a fail racing a cancel, refunds once.
   */
  async failJob(jobId: string, error: string): Promise<boolean> {
    // Set by the rule inside the store's transaction (`as`: TypeScript does not see a callback assign it).
    let given = null as FailureRefund;
    const failed = await this.jobsStore.jobs.fail(jobId, error, this.clock.now(), (job) => (given = refundOf(job)));
    if (failed && given && 'credits' in given) recordRefund(given.credits);
    return failed;
  }

  /**
   * A URL import's true-up once its body has arrived: charge `difference` (402 when the account
   * cannot pay it), or give back its opposite when negative.
   */
  async adjust(job: JobRecord, difference: number): Promise<void> {
    if (difference > 0) {
      const account = await this.accountsStore.accounts.get(job.accountId);
      if (!account) throw new ServiceError('PAYMENT_REQUIRED', 'Insufficient API credits');
      await this.charge(account, difference);
    } else if (difference < 0) await this.creditsStore.usage.refund(job.accountId, job.creditPeriod, -difference);
  }

  /** Take an adjustment back: the job was cancelled meanwhile, and refunded what it was charged at acceptance. */
  async undoAdjust(job: JobRecord, difference: number): Promise<void> {
    if (difference > 0)
      await this.creditsStore.usage.refund(job.accountId, billingPeriod(this.clock.now()), difference);
    else if (difference < 0) await this.creditsStore.usage.charge(job.accountId, job.creditPeriod, -difference, null);
  }

  async balance(account: Account): Promise<Credits> {
    const now = this.clock.now();
    const { creditsIncluded, plan } = this.accounts.limitsOf(account);
    const { used } = await this.creditsStore.usage.get(account.id, billingPeriod(now));
    return {
      plan: plan.label,
      creditsIncluded,
      creditsUsed: used,
      creditsRemaining: Math.max(0, creditsIncluded - used),
      resetDate: nextResetDate(now).toISOString(),
      overageEnabled: account.overageEnabled && plan.overageAvailable,
      // No rate where the plan has no pay-as-you-go (Enterprise): there is nothing it would apply to.
      ...(plan.overageAvailable ? { overageRatePer1000: OVERAGE_RATE_PER_1000 } : {}),
      overageCredits: Math.max(0, used - creditsIncluded),
    };
  }

  /** Support tool: set this month's used credits. */
  async setUsed(accountId: string, used: number): Promise<void> {
    await this.creditsStore.usage.set(accountId, billingPeriod(this.clock.now()), used);
  }
}
