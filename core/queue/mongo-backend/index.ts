/** Agenda on MongoDB (distributed mode), through @agendajs/mongo-backend, and its cross-process dispatch. */
// Before agenda's code loads: its per-poll debug loggers are made once (agenda-debug.ts).
import '../agenda-debug.js';
import { MongoBackend, MongoChangeStreamNotificationChannel, MongoJobRepository } from '@agendajs/mongo-backend';
import {
  InMemoryNotificationChannel,
  type JobParameters,
  type JobRepository,
  type JobRepositoryOptions,
  type NotificationChannel,
} from 'agenda';
import { ObjectId, type Db } from 'mongodb';
import type { Logger } from '../../contract/index.js';
import { isReplicated } from '../../store/mongo/index.js';
import { acceptedLocks, heldLock, holdLock, lockCheckedSave, releaseQuietly } from '../held-lock.js';

export const QUEUE_COLLECTION = 'agendaJobs';
const UNIQUE_INDEX = 'run_job_unique_by_job';

/**
 * The backend on the store's database and connection. Adds the one index Agenda does not make:
 * a conversion job has at most one queue entry (whatever its plugin's entry name), so workers
 * that re-enqueue unfinished jobs at the same moment (starting together after an outage) cannot
 * queue it twice. Agenda's unique save is an upsert, which without a unique index may insert
 * twice under a race. Only conversion entries carry `data.jobId`.
 */
export async function createMongoQueueBackend(db: Db): Promise<MongoBackend> {
  const collection = db.collection(QUEUE_COLLECTION);
  // The index of earlier versions covered the single `run-job` name only.
  await collection.dropIndex('run_job_unique').catch(() => undefined);
  await collection.createIndex(
    { 'data.jobId': 1 },
    { name: UNIQUE_INDEX, unique: true, partialFilterExpression: { 'data.jobId': { $exists: true } } },
  );
  return new MongoQueueBackend(db);
}

/**
 * The published repository with lock-checked saves (held-lock.ts): an entry locked for a run is tagged with the
 * `lockedAt` written, and the run's state saves and unlock apply only while the stored one is still that.
 * Not run here (no MongoDB in this environment: the MongoDB suites need MONGODB_URL).
 */
class LockCheckedRepository extends MongoJobRepository {
  override async getNextJobToRun(...claim: Parameters<JobRepository['getNextJobToRun']>) {
    return holdLock(await super.getNextJobToRun(...claim));
  }

  /** Agenda 6.2.6 runs only what getNextJobToRun locks; a version that runs what lockJob locks keeps the check. */
  override async lockJob(...lock: Parameters<JobRepository['lockJob']>) {
    return holdLock(await super.lockJob(...lock));
  }

  override async saveJobState(job: JobParameters, options: JobRepositoryOptions | undefined): Promise<void> {
    const held = heldLock(job);
    if (!held || !job._id) return super.saveJobState(job, options);
    const date = (value: Date | string | null | undefined) => (value ? new Date(value) : null);
    // The published update, with the lock condition (null matches an unset lockedAt too).
    const id = new ObjectId(job._id.toString());
    await lockCheckedSave(job, held, async (accepted) => {
      const result = await this.collection.updateOne(
        { _id: id, name: job.name, lockedAt: { $in: accepted } },
        {
          $set: {
            lockedAt: date(job.lockedAt),
            nextRunAt: date(job.nextRunAt),
            lastRunAt: date(job.lastRunAt),
            progress: job.progress ?? null,
            failReason: job.failReason ?? null,
            failCount: job.failCount ?? null,
            failedAt: date(job.failedAt),
            lastFinishedAt: date(job.lastFinishedAt),
            lastModifiedBy: options?.lastModifiedBy ?? null,
          },
        },
      );
      return result.acknowledged && result.matchedCount === 1;
    });
  }

  /** Never rejects (releaseQuietly: Agenda leaves the release unawaited). */
  override async unlockJob(job: JobParameters): Promise<void> {
    await releaseQuietly(async () => {
      const held = heldLock(job);
      if (!held || !job._id) return super.unlockJob(job);
      await this.collection.updateOne(
        { _id: new ObjectId(job._id.toString()), nextRunAt: { $ne: null }, lockedAt: { $in: acceptedLocks(held) } },
        { $unset: { lockedAt: true } },
      );
    });
  }
}

/** MongoBackend answering with the lock-checked repository, which it connects beside the published one. */
export class MongoQueueBackend extends MongoBackend {
  private readonly lockChecked: LockCheckedRepository;

  constructor(db: Db) {
    super({ mongo: db, collection: QUEUE_COLLECTION });
    this.lockChecked = new LockCheckedRepository({ mongo: db, db: { collection: QUEUE_COLLECTION } });
  }

  override get repository(): JobRepository {
    return this.lockChecked;
  }

  override async connect(): Promise<void> {
    await super.connect();
    await this.lockChecked.connect();
  }
}

/**
 * Cross-process dispatch on MongoDB: a change stream on the queue collection tells every worker
 * at once about an entry saved by any process. This process's own signals (a job accepted here,
 * a plugin slot freed here, which writes nothing a stream could see) go straight to its handlers
 * as with the in-memory channel, and stay immediate while the stream is down: if it cannot open
 * or breaks, it reconnects with back-off while the workers keep polling. Never fatal.
 */
export class ChangeStreamDispatch extends InMemoryNotificationChannel {
  private readonly stream: MongoChangeStreamNotificationChannel;

  constructor(config: { db: Db; collection: string }) {
    super();
    this.stream = new MongoChangeStreamNotificationChannel({ db: config.db, collection: config.collection });
    this.stream.subscribe((notification) => this.notifyHandlers(notification));
    this.stream.on('error', (err: Error) => this.emit('error', err));
  }

  /** Whether other processes' jobs are signalled now (otherwise they wait for the poll). */
  get streaming(): boolean {
    return this.stream.state === 'connected';
  }

  override async connect(): Promise<void> {
    await super.connect();
    // On failure the stream has emitted the error and scheduled its reconnect.
    await this.stream.connect().catch(() => undefined);
  }

  override async disconnect(): Promise<void> {
    await this.stream.disconnect();
    await super.disconnect();
  }
}

/**
 * The notification channel for the conversion queue on `db`: change streams when the deployment
 * has them, otherwise none (workers find other processes' jobs by polling, QUEUE_POLL_MS).
 */
export async function mongoDispatchChannel(db: Db, log: Logger): Promise<NotificationChannel | undefined> {
  const hello = await db.command({ hello: 1 });
  if (!isReplicated(hello)) {
    log.info('queue dispatch across processes: polling (MongoDB without a replica set has no change streams)');
    return undefined;
  }
  const channel = new ChangeStreamDispatch({ db, collection: QUEUE_COLLECTION });
  // An EventEmitter error without a listener would crash the process; a broken stream only slows dispatch to the poll.
  channel.on('error', (err: Error) =>
    log.warn('queue change stream failed: dispatch falls back to polling until it reconnects', { error: err.message }),
  );
  log.info('queue dispatch across processes: MongoDB change stream');
  return channel;
}
