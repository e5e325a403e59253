/**
 * Job updates for the push surfaces (GraphQL `jobUpdated`, tRPC `jobs.watch`): the current
 * state at once, then every change, ending after done or failed. The store is polled through
 * services.jobs.status, so ownership and the wire view are exactly those of the poll endpoint.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { JobStatus } from '../../schema/index.js';
import type { Principal, Services } from '../../core/services/index.js';

const POLL_MS = 250;

const isFinal = (status: JobStatus) => status.status === 'done' || status.status === 'failed';

/**
 * Reads the first state before returning, so an unknown or foreign job fails the subscription
 * request itself (404) instead of its first event.
 */
export async function watchJob(services: Services, principal: Principal, jobId: string, signal?: AbortSignal): Promise<AsyncGenerator<JobStatus>> {
  const first = await services.jobs.status(principal, jobId);
  return (async function* updates() {
    let current = first;
    let sent: string | undefined;
    for (;;) {
      const snapshot = JSON.stringify(current);
      if (snapshot !== sent) {
        sent = snapshot;
        yield current;
      }
      if (isFinal(current)) return;
      try {
        await sleep(POLL_MS, undefined, signal ? { signal } : {});
      } catch {
        return; // the subscriber went away
      }
      current = await services.jobs.status(principal, jobId);
    }
  })();
}
