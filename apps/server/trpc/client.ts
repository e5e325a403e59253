/**
 * A typed client for the tRPC surface, for TypeScript services:
 *
 *   const transmute = createTransmuteClient('https://convert.example.com', process.env.TRANSMUTE_API_KEY!);
 *   const job = await transmute.convert.mutate(form);   // FormData: file, to, op?, options? (JSON string)
 *   transmute.jobs.watch.subscribe({ jobId: job.jobId }, { onData: (status) => ... });
 *
 * FormData goes unbatched (httpLink), subscriptions over SSE (httpSubscriptionLink with the
 * `eventsource` package, which can send the Authorization header), everything else batched.
 */
import {
  createTRPCClient,
  httpBatchLink,
  httpLink,
  httpSubscriptionLink,
  isNonJsonSerializable,
  splitLink,
} from '@trpc/client';
import { EventSource } from 'eventsource';
import type { AppRouter } from './router.js';

export function createTransmuteClient(baseUrl: string, apiKey: string) {
  const url = `${baseUrl.replace(/\/+$/, '')}/trpc`;
  const headers = { authorization: `Bearer ${apiKey}` };
  return createTRPCClient<AppRouter>({
    links: [
      splitLink({
        condition: (op) => op.type === 'subscription',
        true: httpSubscriptionLink({
          url,
          EventSource,
          eventSourceOptions: {
            fetch: (input, init) => fetch(input, { ...init, headers: { ...init.headers, ...headers } }),
          },
        }),
        false: splitLink({
          condition: (op) => isNonJsonSerializable(op.input),
          true: httpLink({ url, headers }),
          false: httpBatchLink({ url, headers }),
        }),
      }),
    ],
  });
}

export type TransmuteClient = ReturnType<typeof createTransmuteClient>;
