/**
 * Where webhooks may go, and the one POST that takes them there.
 *
 * A URL is checked when it is registered (or given as a per-request override) and again before
 * every attempt, by the outbound address policy (core/engines/outbound.ts): public addresses only,
 * and the connection goes to the address checked. `allowPrivate` (WEBHOOKS_ALLOW_PRIVATE=1, for
 * tests and intranets) admits private ones and plain http; cloud metadata addresses never.
 * No redirect is followed, at most 64 kB of the answer is read, and an attempt ends after 10 s.
 */
import http from 'node:http';
import https from 'node:https';
import {
  DestinationRefused,
  parseDestinationUrl,
  pinnedLookup,
  resolveDestination,
  type Destination,
  type DestinationPolicy,
} from '../engines/outbound.js';

export const WEBHOOK_TIMEOUT_MS = 10_000;
export const MAX_RESPONSE_BYTES = 64 * 1024;
const LABEL = 'Webhook URL';

/** Syntax and scheme: https (http too with allowPrivate), no credentials, at most 2048 characters. */
export const parseWebhookUrl = (raw: string, policy: DestinationPolicy): URL => parseDestinationUrl(raw, policy, LABEL);

/** Checks a URL for registration or override: syntax, scheme and what it resolves to now. Returns it normalised. */
export async function checkWebhookUrl(raw: string, policy: DestinationPolicy): Promise<string> {
  const url = parseWebhookUrl(raw, policy);
  await resolveDestination(url, policy, LABEL);
  return url.toString();
}

export interface AttemptResult {
  /** The receiver's status; null when none came. */
  statusCode: number | null;
  latencyMs: number;
  /** Null when delivered (2xx). */
  error: string | null;
}

const agents = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 64 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 64 }),
};

/**
 * POSTs `body` to `rawUrl`, connecting only to an address checked just now. Any 2xx is a
 * delivery; redirects are answers like any other (not followed); the answer's body is read up to
 * 64 kB and discarded. Never throws.
 */
export async function postWebhook(
  rawUrl: string,
  headers: Record<string, string>,
  body: string,
  policy: DestinationPolicy,
  timeoutMs = WEBHOOK_TIMEOUT_MS,
): Promise<AttemptResult> {
  const started = performance.now();
  const done = (statusCode: number | null, error: string | null): AttemptResult => ({
    statusCode,
    latencyMs: Math.round(performance.now() - started),
    error,
  });
  let url: URL;
  let destination: Destination;
  try {
    url = parseWebhookUrl(rawUrl, policy);
    destination = await resolveDestination(url, policy, LABEL);
  } catch (err) {
    return done(null, err instanceof DestinationRefused ? err.message : 'The webhook URL could not be resolved');
  }
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<AttemptResult>((resolve) => {
    let settled = false;
    const finish = (statusCode: number | null, error: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(done(statusCode, error));
    };
    const request = client.request(
      url,
      {
        method: 'POST',
        agent: agents[url.protocol as 'http:' | 'https:'],
        // The connection goes to the address checked above, whatever DNS answers now.
        lookup: pinnedLookup(destination),
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          'user-agent': 'Transmute-Webhooks/1',
        },
      } as http.RequestOptions,
      (response) => {
        const statusCode = response.statusCode ?? 0;
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          // Enough: the status is the answer; a receiver streaming more is cut off.
          if (read > MAX_RESPONSE_BYTES) {
            finish(statusCode, statusCode >= 200 && statusCode < 300 ? null : `HTTP ${statusCode}`);
            response.destroy();
          }
        });
        response.on('error', () =>
          finish(statusCode, statusCode >= 200 && statusCode < 300 ? null : `HTTP ${statusCode}`),
        );
        response.on('end', () => {
          if (statusCode >= 200 && statusCode < 300) finish(statusCode, null);
          else if (statusCode >= 300 && statusCode < 400)
            finish(statusCode, `HTTP ${statusCode} (redirects are not followed)`);
          else finish(statusCode, `HTTP ${statusCode}`);
        });
      },
    );
    const timer = setTimeout(() => {
      finish(null, `Timed out after ${Math.round(timeoutMs / 1000)} s`);
      request.destroy();
    }, timeoutMs);
    request.on('error', (err: NodeJS.ErrnoException) => finish(null, connectionError(err)));
    request.end(body);
  });
}

/** A client-safe summary of a connection failure (webhooks and URL imports). */
export function connectionError(err: NodeJS.ErrnoException): string {
  switch (err.code) {
    case 'ECONNREFUSED':
      return 'Connection refused';
    case 'ECONNRESET':
      return 'Connection reset';
    case 'ETIMEDOUT':
      return 'Connection timed out';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'Host unreachable';
    default:
      return err.code?.startsWith('ERR_TLS') || /certificate|SSL|TLS/i.test(err.message)
        ? 'TLS handshake failed'
        : 'Connection failed';
  }
}
