/**
 * Ports between the queue and the services, so neither imports the other: the services put jobs
 * on a JobQueue (or hand a job to LocalJobs), and the queue's workers call a JobRunnerPort.
 */
import type { JobRecord } from '../store/types.js';

/** A job as the queue needs it: its id, and its plugin, whose concurrency applies when it is claimed. */
export interface QueuedJob {
  id: string;
  pluginId: string;
}

/** Puts an accepted job on the shared queue (Agenda in production). */
export interface JobQueue {
  enqueue(job: QueuedJob): Promise<void>;
}

/** Runs a job in this process, outside the shared queue (jobs carrying a secret: see InProcessJobs). */
export interface LocalJobs {
  start(jobId: string): void;
}

export interface RunSignals {
  /**
   * Aborted on shutdown, or when the run's queue lock was lost (another attempt holds the job now): the job is
   * left unfinished, for the queue to run again or for the attempt holding it.
   */
  signal?: AbortSignal;
  /** Called while the job makes progress (the queue renews its lock). */
  heartbeat?: () => void;
  /**
   * Asked before a run fails its job: whether the run still holds it (its queue lock renewed now). A run that lost
   * it (its process stalled past the lock lifetime, so its error may be the stall's) leaves the job to the attempt
   * holding it.
   */
  holdsJob?: () => Promise<boolean>;
}

/** What the queue's workers call. */
export interface JobRunnerPort {
  run(jobId: string, signals?: RunSignals): Promise<void>;
  /** Recovery: whether an unfinished job belongs on the shared queue, or is left to the process running it. */
  triage(job: JobRecord): Promise<'queue' | 'leave'>;
  /** Removes this machine's work folders of jobs that ended (what a killed process left); how many went. */
  sweepWork?(): Promise<number>;
}

/** The periodic purge of expired files and tokens. */
export interface RetentionPort {
  purge(): Promise<unknown>;
}

/** Puts a webhook delivery on the shared queue, due at `at` (now when omitted); one entry per delivery. */
export interface WebhookQueue {
  enqueueDelivery(deliveryId: string, at?: Date): Promise<void>;
}

/** What the queue's workers call for webhook deliveries (core/services/webhooks.ts). */
export interface WebhookDeliveryPort {
  /**
   * One attempt; resolves to when the next is due, or null when the delivery is finished (delivered, failed or gone).
   * `signal` aborts it (shutdown, or its queue lock lost): it then resolves to now, the attempt not counted.
   */
  deliver(deliveryId: string, signal?: AbortSignal): Promise<Date | null>;
  /**
   * Pending deliveries (recovery, every minute): each must have a live queue entry. Records first any event a crash
   * left unrecorded.
   */
  pending(): Promise<Array<{ id: string; nextAttemptAt: Date | null }>>;
}
