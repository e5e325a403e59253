/** Test support: the builder declares all three roots, so a test schema needs a field on each. */
import type { Builder } from '../builder.js';

/** A `noop` mutation and a `tick` subscription, for tests that declare only queries. */
export function addIdleRoots(builder: Builder) {
  builder.mutationField('noop', (t) => t.boolean({ description: 'Nothing.', resolve: () => true }));
  builder.subscriptionField('tick', (t) =>
    t.boolean({
      description: 'Nothing.',
      subscribe: async function* () {
        yield true;
      },
      resolve: (value: boolean) => value,
    }),
  );
}
