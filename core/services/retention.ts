/**
 * Retention: deletes uploads and outputs when they fall due (never before), keeps outputs held
 * by an unexpired signed URL, and forgets expired links, sessions and e-mail links. Idempotent and crash-safe: every
 * step deletes the blob first and clears the record after, so a crash in between repeats the delete.
 */
import { DOWNLOAD_LINK_SECONDS, EXTRACTION_RESULT_SECONDS } from '../../schema/index.js';
import type { Logger } from '../contract/index.js';
import type { BlobStore } from '../blobs/types.js';
import type { AccountsStore, JobsStore, LinksStore } from '../store/types.js';
import type { Clock } from './clock.js';

/** Expired signed-URL records are kept this long so a late visitor gets 410, not 404. */
const SIGNED_TOKEN_GRACE_MS = 7 * 24 * 3600 * 1000;
/** One purge looks at this many stale outputs at most (the next takes the rest). */
const MAX_SWEPT_OUTPUTS = 10_000;

export class RetentionService {
  private readonly accountsStore: AccountsStore;
  private readonly jobsStore: JobsStore;
  private readonly linksStore: LinksStore;

  constructor(
    ports: { accounts: AccountsStore; jobs: JobsStore; links: LinksStore },
    private readonly blobs: BlobStore,
    private readonly clock: Clock,
    private readonly log: Logger,
    /**
     * Files no job holds go once this old: uploads (a request cut short by a crash) once no request could still
     * record a job with them (upload-time.ts: orphanUploadAgeMs), outputs once past the retention.
     */
    private readonly orphanAges: { uploadsMs: number; outputsMs: number },
    /** Exports whose holder died (ExportService.failAbandoned): failed by the same sweep. */
    private readonly exports?: { failAbandoned(): Promise<number> },
  ) {
    this.accountsStore = ports.accounts;
    this.jobsStore = ports.jobs;
    this.linksStore = ports.links;
  }

  async purge(): Promise<{ inputs: number; outputs: number }> {
    await this.exports?.failAbandoned();
    const now = this.clock.now();
    const inputsDue = await this.jobsStore.jobs.listInputsDue(now);
    for (const job of inputsDue) {
      // An unfinished job's uploads are still needed: it will finish or fail first (and fail cleans up).
      if (job.status === 'waiting' || job.status === 'active') continue;
      await Promise.all(job.inputs.map((f) => this.blobs.delete(f.blobKey)));
      await this.jobsStore.jobs.clearInputs(job.id);
    }
    const outputsDue = await this.jobsStore.jobs.listOutputsDue(now);
    for (const job of outputsDue) {
      if (job.output) await this.blobs.delete(job.output.blobKey);
      await this.jobsStore.jobs.clearOutput(job.id);
    }
    await this.jobsStore.jobs.clearExpiredDownloadTokens(new Date(now.getTime() - DOWNLOAD_LINK_SECONDS * 1000));
    await this.jobsStore.jobs.clearResultsBefore(new Date(now.getTime() - EXTRACTION_RESULT_SECONDS * 1000));
    await this.linksStore.tokens.deleteExpired(new Date(now.getTime() - SIGNED_TOKEN_GRACE_MS));
    // Expired browser sessions and e-mail links are inert (every lookup checks the expiry): forgotten here.
    await this.accountsStore.sessions.deleteExpired(now);
    await this.accountsStore.emailTokens.deleteExpired(now);
    const orphans = (await this.sweepOrphanUploads()) + (await this.sweepOrphanOutputs());
    if (inputsDue.length || outputsDue.length || orphans)
      this.log.info('purged expired files', { inputs: inputsDue.length, outputs: outputsDue.length, orphans });
    return { inputs: inputsDue.length, outputs: outputsDue.length };
  }

  /**
   * Outputs no job holds: an attempt's whose process died before finishing the job, or one whose delete failed (the
   * file store down at that moment; nothing else would try it again). Each attempt stores under its own key
   * (`outputs/<jobId>.<attempt>`) and finishes the job seconds later, so once older than the retention an output
   * that is not its job's is dead.
   */
  private async sweepOrphanOutputs(): Promise<number> {
    const stale = await this.blobs.listStale('outputs', new Date(Date.now() - this.orphanAges.outputsMs));
    let removed = 0;
    for (const key of stale.slice(0, MAX_SWEPT_OUTPUTS)) {
      const jobId = /^outputs\/(.+)\.\d+$/.exec(key)?.[1];
      const job = jobId ? await this.jobsStore.jobs.view(jobId) : null;
      if (job?.output?.blobKey === key) continue;
      await this.blobs.delete(key);
      removed++;
    }
    return removed;
  }

  /**
   * Uploads that no unfinished job holds: partial blobs of a process that died mid-request, or
   * files staged by a request that never finished. Ages are the files' own (real time). A request on any process
   * records its job only while its files are younger than the upload age less a margin (bodies and acceptance are
   * bounded: upload-time.ts), and a recorded job holds them: so a file a live request still needs is never stale.
   */
  private async sweepOrphanUploads(): Promise<number> {
    const stale = await this.blobs.listStale('uploads', new Date(Date.now() - this.orphanAges.uploadsMs));
    if (!stale.length) return 0;
    const held = new Set(
      (await this.jobsStore.jobs.listUnfinished()).flatMap((job) => job.inputs.map((f) => f.blobKey)),
    );
    const orphans = stale.filter((key) => !held.has(key));
    await Promise.all(orphans.map((key) => this.blobs.delete(key)));
    return orphans.length;
  }
}
