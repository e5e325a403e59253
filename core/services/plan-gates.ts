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
};

/** 403 unless the account's plan unlocks `feature`. */
export function requireFeature(account: Account, feature: Feature): void {
  requirePlan(account, FEATURE_MIN_PLAN[feature], FEATURE_NAMES[feature]);
}

/** 403 unless the account's plan is at least `minimum` (a plugin's own lowest plan). */
export function requirePlan(account: Account, minimum: PlanId, what: string): void {
  if (!planAtLeast(account.plan, minimum)) throw forbidden(`${what} require${/s$/.test(what) ? '' : 's'} the ${PLANS[minimum].label} plan or higher`);
}
