/** Time source for every rule with a deadline, injectable so tests can cross a month or an hour. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** Billing period of an instant: 'YYYY-MM' in UTC. */
export function billingPeriod(at: Date): string {
  return at.toISOString().slice(0, 7);
}

/** The 1st of the month after `at`, 00:00 UTC. */
export function nextResetDate(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
}
