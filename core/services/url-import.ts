/**
 * The outbound fetcher of URL imports (`url` / `urls` instead of uploaded files): one streaming GET
 * under the outbound address policy (core/engines/outbound.ts).
 *
 * - https only; private, loopback and link-local addresses and plain http only with
 *   IMPORT_ALLOW_PRIVATE=1; cloud metadata addresses never.
 * - The connection goes to the address checked (pinned lookup: no DNS rebinding).
 * - At most 5 redirects, each target checked again like the first URL.
 * - One deadline for the whole fetch, headers and body; the body is never buffered: the caller
 *   streams it into the blob store under the plan's size limit (UploadService.stage).
 * - The file name comes from Content-Disposition, else the URL path's last segment.
 * Every failure is a ServiceError whose message is safe to show the client.
 */
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import { parse as parseContentDisposition } from 'content-disposition';
import {
  DestinationRefused,
  parseDestinationUrl,
  pinnedLookup,
  resolveDestination,
  type DestinationPolicy,
} from '../engines/outbound.js';
import { type ServiceError, badRequest } from './errors.js';
import { connectionError } from './webhook-http.js';

export const MAX_IMPORT_REDIRECTS = 5;
export const DEFAULT_IMPORT_TIMEOUT_MS = 5 * 60_000;
const LABEL = 'Import URL';

export interface UrlImportConfig extends DestinationPolicy {
  /** The whole fetch, from the first connection to the body's last byte. */
  timeoutMs?: number;
}

/** A fetched file: its name and its body, streaming. */
export interface ImportedFile {
  filename: string;
  stream: Readable;
  /** Content-Length when the server sent one. */
  declaredBytes: number | null;
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
   * GET `raw`, following at most 5 redirects, each checked. Resolves when a 2xx answer's headers
   * are in; the body then streams, and fails (with a ServiceError) at the deadline or when the
   * size limit is passed (`maxBytes`, checked against Content-Length before any byte is read).
   */
  async open(raw: string, maxBytes: number, tooLarge: () => ServiceError): Promise<ImportedFile> {
    const timeoutMs = this.config.timeoutMs ?? DEFAULT_IMPORT_TIMEOUT_MS;
    const deadline = AbortSignal.timeout(timeoutMs);
    const timedOut = () => badRequest(`${LABEL} timed out after ${Math.round(timeoutMs / 1000)} s`);
    let url = this.parse(raw);
    for (let redirects = 0; ; redirects++) {
      const response = await this.get(url, deadline, timedOut);
      const status = response.statusCode ?? 0;
      if (status >= 300 && status < 400 && response.headers.location) {
        response.resume();
        if (redirects >= MAX_IMPORT_REDIRECTS)
          throw badRequest(`${LABEL} failed: more than ${MAX_IMPORT_REDIRECTS} redirects`);
        let next: string;
        try {
          next = new URL(response.headers.location, url).toString();
        } catch {
          throw badRequest(`${LABEL} failed: the server redirected to an invalid URL`);
        }
        url = this.parse(next);
        continue;
      }
      if (status < 200 || status >= 300) {
        response.resume();
        throw badRequest(`${LABEL} failed: ${url.host} answered HTTP ${status}`);
      }
      const length = Number(response.headers['content-length']);
      const declaredBytes = Number.isFinite(length) && length >= 0 ? length : null;
      if (declaredBytes !== null && declaredBytes > maxBytes) {
        response.destroy();
        throw tooLarge();
      }
      // Our own stream: it fails with the client-safe verdict only (deadline, connection lost).
      const body = new PassThrough();
      const onDeadline = () => body.destroy(timedOut());
      deadline.addEventListener('abort', onDeadline, { once: true });
      body.once('close', () => deadline.removeEventListener('abort', onDeadline));
      response.once('error', () => body.destroy(badRequest(`${LABEL} failed: the connection to ${url.host} was lost`)));
      body.once('close', () => response.destroy());
      response.pipe(body);
      return { filename: importedFilename(response.headers['content-disposition'], url), stream: body, declaredBytes };
    }
  }

  private async get(url: URL, deadline: AbortSignal, timedOut: () => ServiceError): Promise<http.IncomingMessage> {
    let destination: Awaited<ReturnType<typeof resolveDestination>>;
    try {
      destination = await resolveDestination(url, this.config, LABEL);
    } catch (err) {
      throw err instanceof DestinationRefused ? badRequest(err.message) : err;
    }
    if (deadline.aborted) throw timedOut();
    const client = url.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      const request = client.get(
        url,
        {
          // The connection goes to the address checked above, whatever DNS answers now.
          lookup: pinnedLookup(destination),
          headers: { 'user-agent': 'Transmute-Import/1', accept: '*/*' },
          signal: deadline,
        } as http.RequestOptions,
        resolve,
      );
      request.once('error', (err: NodeJS.ErrnoException) => {
        reject(deadline.aborted ? timedOut() : badRequest(`${LABEL} failed: ${connectionError(err)} (${url.host})`));
      });
    });
  }
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
