/**
 * The outbound fetcher of URL imports (`url` / `urls` instead of uploaded files), on the server's
 * one outbound request (core/engines/outbound.ts: requestChecked).
 *
 * - https only; private, loopback and link-local addresses and plain http only with
 *   IMPORT_ALLOW_PRIVATE=1; cloud metadata addresses never.
 * - The connection goes to the address checked (pinned lookup: no DNS rebinding).
 * - At most 5 redirects, each target checked again like the first URL.
 * - At submit, `probe` asks for the headers only (HEAD, short deadline): a refused URL or
 *   redirect is a 400 then, a declared size over the plan a 413; the declared size prices the job.
 *   Any other HEAD outcome (405, 403 of a presigned GET URL, no answer) tells nothing: the GET decides.
 * - The job's runner then `open`s the GET: one deadline for headers and body; the body is never
 *   buffered: the caller streams it into the blob store under the plan's size limit.
 * - The file name comes from Content-Disposition, else the URL path's last segment.
 * Every failure is a ServiceError whose message is safe to show the client.
 */
import path from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import { parse as parseContentDisposition } from 'content-disposition';
import {
  DestinationRefused,
  OutboundTimeout,
  connectionError,
  parseDestinationUrl,
  requestChecked,
  type CheckedAnswer,
  type CheckedRequest,
  type DestinationPolicy,
} from '../engines/outbound.js';
import { ServiceError, badRequest } from './errors.js';

export const MAX_IMPORT_REDIRECTS = 5;
export const DEFAULT_IMPORT_TIMEOUT_MS = 5 * 60_000;
/** The HEAD at submit: short, since the client waits for it. */
export const IMPORT_PROBE_TIMEOUT_MS = 10_000;
const LABEL = 'Import URL';
const HEADERS = { 'user-agent': 'Transmute-Import/1', accept: '*/*' };

export interface UrlImportConfig extends DestinationPolicy {
  /** The whole fetch, from the first connection to the body's last byte. */
  timeoutMs?: number;
  /** The HEAD at submit. */
  probeTimeoutMs?: number;
}

/** What the server says of a URL before its body is fetched. */
export interface ProbedUrl {
  url: string;
  filename: string;
  /** Content-Length of a 2xx HEAD answer; null when none came. */
  declaredBytes: number | null;
}

/** A fetched file: its body, streaming. */
export interface ImportedFile {
  filename: string;
  stream: Readable;
}

export class UrlImporter {
  constructor(private readonly config: UrlImportConfig) {}

  /** Syntax and scheme only (no DNS): every URL of a request is checked before any is fetched. */
  parse(raw: string): URL {
    try {
      return parseDestinationUrl(raw, this.config, LABEL);
    } catch (err) {
      throw err instanceof DestinationRefused ? badRequest(err.message) : err;
    }
  }

  /**
   * HEAD `raw` at submit: 400 for a refused address or redirect, 413 (`tooLarge`) for a declared
   * size over `maxBytes`. Other failures are left to the GET, which fails the job.
   */
  async probe(raw: string, maxBytes: number, tooLarge: () => ServiceError): Promise<ProbedUrl> {
    const url = this.parse(raw);
    let answer: CheckedAnswer;
    try {
      answer = await this.request(url.toString(), 'HEAD', this.config.probeTimeoutMs ?? IMPORT_PROBE_TIMEOUT_MS);
    } catch (err) {
      if (err instanceof DestinationRefused) throw badRequest(err.message);
      return { url: url.toString(), filename: importedFilename(undefined, url), declaredBytes: null };
    }
    // A HEAD answer has no body: read to its end, its socket goes back to the keep-alive pool.
    answer.body.resume();
    const ok = answer.status >= 200 && answer.status < 300;
    const length = Number(answer.headers['content-length']);
    const declaredBytes = ok && answer.headers['content-length'] && length >= 0 ? length : null;
    if (declaredBytes !== null && declaredBytes > maxBytes) throw tooLarge();
    return {
      url: url.toString(),
      filename: importedFilename(ok ? answer.headers['content-disposition'] : undefined, ok ? answer.url : url),
      declaredBytes,
    };
  }

  /**
   * GET `raw`, following at most 5 redirects, each checked. Resolves when a 2xx answer's headers
   * are in; the body then streams, and fails (with a ServiceError) at the deadline, on `signal`,
   * or when the size limit is passed (`maxBytes`, checked against Content-Length before any byte).
   */
  async open(raw: string, maxBytes: number, tooLarge: () => ServiceError, signal?: AbortSignal): Promise<ImportedFile> {
    const timeoutMs = this.config.timeoutMs ?? DEFAULT_IMPORT_TIMEOUT_MS;
    const url = this.parse(raw);
    let answer: CheckedAnswer;
    try {
      answer = await this.request(url.toString(), 'GET', timeoutMs, signal);
    } catch (err) {
      throw importError(err, url, timeoutMs);
    }
    const { status, body } = answer;
    if (status < 200 || status >= 300) {
      body.destroy();
      throw badRequest(`${LABEL} failed: ${answer.url.host} answered HTTP ${status}`);
    }
    const length = Number(answer.headers['content-length']);
    if (answer.headers['content-length'] && length > maxBytes) {
      body.destroy();
      throw tooLarge();
    }
    // Our own stream: it fails with the client-safe verdict only (deadline, connection lost).
    const stream = new PassThrough();
    body.once('error', (err) => stream.destroy(importError(err, answer.url, timeoutMs, 'lost') as Error));
    stream.once('close', () => body.destroy());
    body.pipe(stream);
    return { filename: importedFilename(answer.headers['content-disposition'], answer.url), stream };
  }

  private request(url: string, method: 'GET' | 'HEAD', timeoutMs: number, signal?: AbortSignal) {
    const request: CheckedRequest = {
      url,
      method,
      headers: HEADERS,
      policy: this.config,
      label: LABEL,
      timeoutMs,
      maxRedirects: MAX_IMPORT_REDIRECTS,
      ...(signal ? { signal } : {}),
    };
    return requestChecked(request);
  }
}

/** A fetch failure as the client may read it. */
function importError(err: unknown, url: URL, timeoutMs: number, phase: 'connect' | 'lost' = 'connect'): unknown {
  if (err instanceof ServiceError) return err;
  if (err instanceof DestinationRefused) return badRequest(err.message);
  if (err instanceof OutboundTimeout) return badRequest(`${LABEL} timed out after ${Math.round(timeoutMs / 1000)} s`);
  if (phase === 'lost') return badRequest(`${LABEL} failed: the connection to ${url.host} was lost`);
  if ((err as NodeJS.ErrnoException)?.code || err instanceof Error)
    return badRequest(`${LABEL} failed: ${connectionError(err as NodeJS.ErrnoException)} (${url.host})`);
  return err;
}

/** The name Content-Disposition gives, else the URL path's last segment (decoded), else "download". */
export function importedFilename(disposition: string | undefined, url: URL): string {
  if (disposition) {
    try {
      const name = parseContentDisposition(disposition).parameters.filename;
      if (name) return name;
    } catch {
      // A malformed header: fall back to the URL.
    }
  }
  const last = url.pathname.split('/').filter(Boolean).pop();
  if (!last) return 'download';
  try {
    return path.basename(decodeURIComponent(last));
  } catch {
    return last;
  }
}
