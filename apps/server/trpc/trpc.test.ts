import { TRPCError } from '@trpc/server';
import { expect, it } from 'vitest';
import type { Principal, Services } from '../../../core/services/index.js';
import { createTrpcContext } from './context.js';
import { authedProcedure, createCallerFactory, router } from './trpc.js';

it('a backend that did not answer is SERVICE_UNAVAILABLE (503) with its retry delay, logged as a warning', async () => {
  // What node-postgres rejects a query with when the server went away under it.
  const lost = new Error('Connection terminated unexpectedly');
  const probe = router({
    read: authedProcedure.query(() => {
      throw lost;
    }),
  });
  const warnings: object[] = [];
  const caller = createCallerFactory(probe)(
    createTrpcContext({} as Services, {} as Principal, { warn: (fields) => warnings.push(fields) }),
  );
  const failure = await caller.read().catch((error: unknown) => error);
  expect(failure).toBeInstanceOf(TRPCError);
  expect(failure).toMatchObject({
    code: 'SERVICE_UNAVAILABLE',
    message: "The service's database did not answer; try again shortly",
    cause: { code: 'UNAVAILABLE', detail: { retryAfterSeconds: 5, backend: 'PostgreSQL' } },
  });
  expect(warnings).toEqual([{ backend: 'PostgreSQL', err: lost }]);
});
