import { describe, expect, it } from 'vitest';
import { FinishedJobs } from './finished-jobs.js';

const settled = (promise: Promise<unknown>) =>
  Promise.race([promise.then(() => true), new Promise<boolean>((resolve) => setImmediate(resolve, false))]);

describe('FinishedJobs', () => {
  it('wakes the waiters of the job that finished, and only those', async () => {
    const finished = new FinishedJobs();
    const a = finished.next('job-a');
    const b = finished.next('job-b');
    finished.notify('job-a');
    expect(await settled(a.finished)).toBe(true);
    expect(await settled(b.finished)).toBe(false);
    b.cancel();
  });

  it('a cancelled wait is no longer listening (a finish before the wait began is seen by the store read)', async () => {
    const finished = new FinishedJobs();
    const wait = finished.next('job-a');
    wait.cancel();
    finished.notify('job-a');
    expect(await settled(wait.finished)).toBe(false);
    // Nothing left behind for a job nobody waits for any more.
    expect(
      (finished as unknown as { emitter: { listenerCount(e: string): number } }).emitter.listenerCount('job-a'),
    ).toBe(0);
  });
});
