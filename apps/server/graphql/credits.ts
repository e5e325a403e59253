/** Credits: the caller's balance (GET /api/v1/credits). */
import { PLANS, type Credits } from '../../../schema/index.js';
import type { Builder } from './builder.js';

export function addCredits(builder: Builder) {
  const CreditsRef = builder.objectRef<Credits>('Credits').implement({
    description: 'Credit balance of this month.',
    fields: (t) => ({
      plan: t.exposeString('plan', { description: 'The plan\'s name, e.g. "Pro".' }),
      creditsIncluded: t.exposeInt('creditsIncluded', { description: 'Monthly allowance.' }),
      creditsUsed: t.exposeInt('creditsUsed', { description: 'Used this month.' }),
      creditsRemaining: t.exposeInt('creditsRemaining', { description: 'Left this month.' }),
      resetDate: t.expose('resetDate', {
        type: 'DateTime',
        description: 'Next reset: the 1st of the next month, UTC.',
      }),
      overageEnabled: t.exposeBoolean('overageEnabled', { description: 'Pay-as-you-go on or off.' }),
      overageRatePer1000: t.exposeFloat('overageRatePer1000', {
        nullable: true,
        description: 'EUR per 1,000 credits past the allowance; null where the plan has no pay-as-you-go (Enterprise).',
      }),
      overageCredits: t.exposeInt('overageCredits', { description: 'Credits metered past the allowance.' }),
      overageAvailable: t.boolean({
        description: 'Whether the plan offers pay-as-you-go (every plan but Enterprise): setOverage.',
        resolve: (_credits, _args, { principal }) => PLANS[principal.account.plan].overageAvailable,
      }),
    }),
  });

  return CreditsRef;
}
