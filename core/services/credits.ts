/** Credits: atomic charge at acceptance, refunds, balance, monthly periods. */
import { OVERAGE_RATE_PER_1000, type Credits } from '../../schema/index.js';
import { refundOf } from './job-policy.js';
import type {
  Account,
  AccountsStore,
  CreditsStore,
  FailureRefund,
  JobRecord,
  JobsStore,
  NewJob,
} from '../store/types.js';
import type { AccountService } from './accounts.js';
import { billingPeriod, nextResetDate, type Clock } from './clock.js';
import { recordRefund } from '../telemetry/metrics.js';
import { ServiceError } from './errors.js';

const insufficient = () => new ServiceError('PAYMENT_REQUIRED', 'Insufficient API credits');

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

  /** This month's period, and the usage a charge may not pass (null: overage is on). */
  private terms(account: Account) {
    const included = this.accounts.limitsOf(account).creditsIncluded;
    const overage = account.overageEnabled && this.accounts.limitsOf(account).plan.overageAvailable;
    return { period: billingPeriod(this.clock.now()), included, limit: overage ? null : included };
  }

  /** Charge `cost` now, or 402 when the allowance is used and overage is off. */
  async charge(account: Account, cost: number): Promise<Charge> {
    const { period, included, limit } = this.terms(account);
    const result = await this.creditsStore.usage.charge(account.id, period, cost, limit);
    if (!result.ok) throw insufficient();
    return { period, cost, creditsRemaining: Math.max(0, included - result.used) };
  }

  /**
   * Charge a new job's cost and record it in one store transaction (402 when the allowance is used and overage is
   * off): a write failing or a process dying between the two leaves neither, so every charge has its job.
   */
  async chargeAndRecord(
    account: Account,
    job: Omit<NewJob, 'creditPeriod'>,
  ): Promise<{ job: JobRecord; creditsRemaining: number }> {
    const { period, included, limit } = this.terms(account);
    const result = await this.jobsStore.jobs.createCharged({ ...job, creditPeriod: period }, limit);
    if (!result.ok) throw insufficient();
    return { job: result.job, creditsRemaining: Math.max(0, included - result.used) };
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
      if (!account) throw insufficient();
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
