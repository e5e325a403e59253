/** Every plan gate in one place, so REST, GraphQL and tRPC refuse the same things the same way. */
import { FEATURE_MIN_PLAN, PLANS, planAtLeast, type Feature, type PlanId } from '../../schema/index.js';
import type { Account } from '../store/types.js';
import { forbidden } from './errors.js';

const FEATURE_NAMES: Record<Feature, string> = {
  'tool-ops': 'Tool operations',
  merge: 'PDF merge',
  batch: 'Batch conversion',
  extraction: 'Extraction tools',
  transcribe: 'Transcription',
  'signed-urls': 'Signed URLs',
  webhooks: 'Webhooks',
};

/** 403 unless the account's plan unlocks `feature`. */
export function requireFeature(account: Account, feature: Feature): void {
  requirePlan(account, FEATURE_MIN_PLAN[feature], FEATURE_NAMES[feature]);
}

/**
 * The machine-readable code of every plan-gate 403 (`{error, code}` over REST, `extensions.reason`
 * in GraphQL, `data.reason` in tRPC), beside the free-try codes `trial_used` and `trial_single_file`.
 */
export const PLAN_REQUIRED = 'plan_required';

/** 403 unless the account's plan is at least `minimum` (a plugin's own lowest plan). */
export function requirePlan(account: Account, minimum: PlanId, what: string): void {
  if (!planAtLeast(account.plan, minimum)) {
    throw forbidden(
      `${what} require${/s$/.test(what) ? '' : 's'} the ${PLANS[minimum].label} plan or higher`,
      PLAN_REQUIRED,
    );
  }
}
