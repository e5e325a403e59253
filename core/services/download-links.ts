/**
 * The 15-minute download links of finished jobs: minted at completion, shown by every poll for
 * 15 minutes, never stored in a usable form.
 *
 * The token is derived, not random: HMAC-SHA256 under the server secret (TOKEN_SECRET, or
 * DATA_DIR/secret-key in embedded mode) of the job id and its completion time, base64url (43
 * characters, the wire shape of every token). The store keeps only sha256(token): in the tokens
 * table (what GET /api/download resolves) and on the job row (so a poll shows a link only when
 * the one it derives is the one minted). A leaked database or dump holds ids, times and hashes,
 * none of which yields a working link without the secret, which is never in the database.
 *
 * Why an HMAC rather than an encrypted token: nothing secret-derived is written anywhere (no
 * ciphertext, IV or key version to store or migrate), every poll on every process that shares
 * the secret derives the same URL, and there is nothing to decrypt. Changing the secret ends the
 * current links early (polls stop showing them; they last 15 minutes anyway).
 */
import { createHmac } from 'node:crypto';
import { DOWNLOAD_LINK_SECONDS } from '../../schema/index.js';
import type { JobCompletion, JobsStore, JobView, LinksStore } from '../store/types.js';
import type { Clock } from './clock.js';
import { sha256 } from './secrets.js';

/** A secret shorter than this is refused (config enforces it for TOKEN_SECRET too). */
export const MIN_TOKEN_SECRET_BYTES = 32;

/** What the runner records when a file job finishes: jobs.complete without the link. */
export type FileCompletion = Omit<JobCompletion, 'downloadTokenHash' | 'downloadToken'>;

/** How many jobs' links a process remembers (the polls of the jobs in flight; the oldest go first). */
const REMEMBERED_LINKS = 10_000;

export class DownloadLinks {
  /**
   * The links derived lately, by job id, with the completion and hash they were checked against:
   * a job polled every second derives its link once, not an HMAC and a SHA-256 per poll.
   */
  private readonly derived = new Map<string, { at: number; hash: string; token: string | null }>();

  private readonly jobsStore: JobsStore;
  private readonly linksStore: LinksStore;

  constructor(
    ports: { jobs: JobsStore; links: LinksStore },
    private readonly secret: string,
    private readonly publicUrl: string,
    private readonly clock: Clock,
  ) {
    this.jobsStore = ports.jobs;
    this.linksStore = ports.links;
    if (Buffer.byteLength(secret) < MIN_TOKEN_SECRET_BYTES)
      throw new Error(`The token secret must be at least ${MIN_TOKEN_SECRET_BYTES} bytes`);
  }

  /**
   * Finish an active file job with its link: the token's hash is stored first, so no poll can
   * show a link that does not open yet. False when the job was not active (finished elsewhere);
   * the hash row then names a link nobody was shown, and expires with it.
   */
  async complete(jobId: string, completion: FileCompletion): Promise<boolean> {
    const tokenHash = sha256(this.derive(jobId, completion.at));
    await this.linksStore.tokens.create({
      hash: tokenHash,
      jobId,
      kind: 'download',
      reusable: true,
      createdAt: completion.at,
      expiresAt: new Date(completion.at.getTime() + DOWNLOAD_LINK_SECONDS * 1000),
      consumedAt: null,
    });
    const { output, toolReport, result, at, outputExpiresAt } = completion;
    return this.jobsStore.jobs.complete(jobId, {
      output,
      toolReport,
      result: result ?? null,
      at,
      outputExpiresAt,
      downloadTokenHash: tokenHash,
    });
  }

  /** The token of a done job's link while it lives (15 minutes from completion), else null. */
  jobToken(job: JobView): string | null {
    if (job.status !== 'done' || !job.output || !job.completedAt || !job.downloadTokenHash) return null;
    if (this.clock.now().getTime() >= job.completedAt.getTime() + DOWNLOAD_LINK_SECONDS * 1000) return null;
    const at = job.completedAt.getTime();
    const known = this.derived.get(job.id);
    if (known && known.at === at && known.hash === job.downloadTokenHash) return known.token;
    const derived = this.derive(job.id, job.completedAt);
    // Minted under another secret, or before links were derived (an upgraded database): no link.
    const token = sha256(derived) === job.downloadTokenHash ? derived : null;
    if (this.derived.size >= REMEMBERED_LINKS) this.derived.delete(this.derived.keys().next().value!);
    this.derived.set(job.id, { at, hash: job.downloadTokenHash, token });
    return token;
  }

  /** The poll's downloadUrl, while the job's link lives. */
  jobUrl(job: JobView): string | null {
    const token = this.jobToken(job);
    return token ? this.url(token) : null;
  }

  /** The absolute URL of any token (15-minute link or signed URL). */
  url(token: string): string {
    return `${this.publicUrl}/api/download/${token}`;
  }

  private derive(jobId: string, completedAt: Date): string {
    return createHmac('sha256', this.secret)
      .update(JSON.stringify(['transmute/download-link/v1', jobId, completedAt.getTime()]))
      .digest('base64url');
  }
}
