/**
 * Download tokens (15-minute links, minted by download-links.ts) and signed URLs (Business and up), and what they
 * serve.
 */
import type { Readable } from 'node:stream';
import { PLANS, downloadTokenSchema, type SignedUrl } from '../../schema/index.js';
import type { BlobStore } from '../blobs/types.js';
import type { JobsStore, LinksStore } from '../store/types.js';
import type { Principal } from './accounts.js';
import type { Clock } from './clock.js';
import type { DownloadLinks } from './download-links.js';
import { ServiceError, badRequest, notFound } from './errors.js';
import { requireFeature } from './plan-gates.js';
import type { JobService } from './jobs.js';
import { randomToken, sha256 } from './secrets.js';

export interface Download {
  stream: Readable;
  filename: string;
  bytes: number;
}

export class DownloadService {
  private readonly jobsStore: JobsStore;
  private readonly linksStore: LinksStore;

  constructor(
    ports: { jobs: JobsStore; links: LinksStore },
    private readonly blobs: BlobStore,
    private readonly jobs: JobService,
    private readonly clock: Clock,
    private readonly links: DownloadLinks,
  ) {
    this.jobsStore = ports.jobs;
    this.linksStore = ports.links;
  }

  /** Resolve a token to the output it grants. 400 malformed, 404 unknown/expired/consumed, 410 signed output gone. */
  async open(token: string): Promise<Download> {
    if (!downloadTokenSchema.safeParse(token).success) throw badRequest('Invalid download token');
    const hash = sha256(token);
    const record = await this.linksStore.tokens.get(hash);
    if (!record) throw notFound('Download link not found or expired');
    const job = await this.jobsStore.jobs.get(record.jobId);
    const output = job?.output;
    const present = output ? await this.blobs.exists(output.blobKey) : false;
    if (record.kind === 'signed' && !present)
      throw new ServiceError('GONE', 'The file behind this signed URL has been deleted');
    if (this.clock.now() >= record.expiresAt) throw notFound('Download link expired');
    if (!output || !present) throw notFound('Download link expired');
    if (!record.reusable && !(await this.linksStore.tokens.consume(hash, this.clock.now())))
      throw notFound('Download link already used');
    return { stream: this.blobs.read(output.blobKey), filename: output.filename, bytes: output.bytes };
  }

  /** POST /api/v1/signed-url: a long-lived link that keeps the output until it expires. */
  async createSignedUrl(
    principal: Principal,
    request: { jobId: string; expirySeconds?: number; reusable: boolean },
  ): Promise<SignedUrl> {
    requireFeature(principal.account, 'signed-urls');
    const limits = PLANS[principal.account.plan].signedUrl!;
    const job = await this.jobs.getOwned(principal, request.jobId);
    if (job.status === 'failed') throw badRequest('The job failed and has no output: there is nothing to sign');
    if (job.status !== 'done') throw badRequest('The job has not finished: wait for status done');
    if (!job.output || !(await this.blobs.exists(job.output.blobKey))) {
      throw notFound('The output has already been deleted: signed URLs must be minted within an hour of completion');
    }
    const expiresIn = Math.min(request.expirySeconds ?? limits.defaultSeconds, limits.maxSeconds);
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + expiresIn * 1000);
    const token = randomToken();
    await this.linksStore.tokens.create({
      hash: sha256(token),
      jobId: job.id,
      kind: 'signed',
      reusable: request.reusable,
      expiresAt,
      consumedAt: null,
      createdAt: now,
    });
    await this.jobsStore.jobs.extendOutput(job.id, expiresAt);
    return { url: this.links.url(token), expiresIn, expiresAt: expiresAt.toISOString(), reusable: request.reusable };
  }
}
