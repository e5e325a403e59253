import { Agenda, type AgendaBackend } from 'agenda';

/** How a conformance worker process runs its jobs; passed to `BackendStorage.spawnWorker`. */
export interface ConformanceWorkerOptions {
  /** Distinguishes this worker's lines from other workers' in the test's records. */
  workerName: string;
  jobName: string;
  jobDurationMs: number;
  processEvery: number;
  /** Caps how many jobs this worker locks at once, so that several workers share a batch. */
  lockLimit: number;
  lockLifetime: number;
}

/** One line on the worker's stdout. */
export type WorkerEvent =
  | { event: 'ready'; worker: string }
  | { event: 'start' | 'finish'; worker: string; jobId: string };

/**
 * Body of a worker process for the conformance suite's cross-process tests: runs
 * `options.jobName` jobs on `backend` and reports each start and finish as a JSON line on
 * stdout. Stops cleanly on SIGTERM; tests use SIGKILL to simulate a crash.
 */
export async function runConformanceWorker(backend: AgendaBackend, options: ConformanceWorkerOptions): Promise<void> {
  const report = (event: WorkerEvent): void => {
    process.stdout.write(`${JSON.stringify(event)}\n`);
  };
  const agenda = new Agenda({
    backend,
    name: options.workerName,
    processEvery: options.processEvery,
    lockLimit: options.lockLimit,
  });
  agenda.define(
    options.jobName,
    async (job) => {
      const jobId = String(job.attrs._id);
      report({ event: 'start', worker: options.workerName, jobId });
      await new Promise((resolve) => setTimeout(resolve, options.jobDurationMs));
      report({ event: 'finish', worker: options.workerName, jobId });
    },
    { lockLifetime: options.lockLifetime },
  );
  process.once('SIGTERM', () => {
    void agenda.stop().finally(() => process.exit(0));
  });
  await agenda.start();
  report({ event: 'ready', worker: options.workerName });
}
