/** Download links and signed URLs (stored as token hashes): the records and repository ports of this aggregate. */

export interface DownloadTokenRecord {
  /** SHA-256 of the token, hex: a leaked database does not leak working links. */
  hash: string;
  jobId: string;
  kind: 'download' | 'signed';
  reusable: boolean;
  expiresAt: Date;
  consumedAt: Date | null;
  createdAt: Date;
}

export interface TokenRepo {
  create(token: DownloadTokenRecord): Promise<void>;
  get(hash: string): Promise<DownloadTokenRecord | null>;
  /** Atomically consume a single-use token; false when it was already consumed. */
  consume(hash: string, at: Date): Promise<boolean>;
  deleteExpired(now: Date): Promise<number>;
}

/** What every adapter provides for this aggregate. */
export interface LinksStore {
  readonly tokens: TokenRepo;
}
