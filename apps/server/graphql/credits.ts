/** Credits: the caller's balance (GET /api/v1/credits). */
import { PLANS, creditsSchema } from '../../../schema/index.js';
import type { Builder } from './builder.js';
import { addZodObject } from './zod-objects.js';

export function addCredits(builder: Builder) {
  return addZodObject(builder, 'Credits', creditsSchema, {
    description: 'Credit balance of this month.',
    extra: (t) => ({
      overageAvailable: t.boolean({
        description: 'Whether the plan offers pay-as-you-go (every plan but Enterprise): setOverage.',
        resolve: (_credits, _args, { principal }) => PLANS[principal.account.plan].overageAvailable,
      }),
    }),
  });
}
