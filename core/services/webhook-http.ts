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
  OutboundTimeout,
  connectionError,
  parseDestinationUrl,
  requestChecked,
  resolveDestination,
  type CheckedAnswer,
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
  signal?: AbortSignal,
): Promise<AttemptResult> {
  const started = performance.now();
  const done = (statusCode: number | null, error: string | null): AttemptResult => ({
    statusCode,
    latencyMs: Math.round(performance.now() - started),
    error,
  });
  let answer: CheckedAnswer;
  try {
    answer = await requestChecked({
      url: rawUrl,
      method: 'POST',
      headers: {
        ...headers,
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
        'user-agent': 'Transmute-Webhooks/1',
      },
      body,
      policy,
      label: LABEL,
      timeoutMs,
      signal,
      agent: agents[rawUrl.startsWith('https:') ? 'https:' : 'http:'],
    });
  } catch (err) {
    if (err instanceof DestinationRefused) return done(null, err.message);
    if (err instanceof OutboundTimeout) return done(null, `Timed out after ${Math.round(timeoutMs / 1000)} s`);
    return done(null, connectionError(err as NodeJS.ErrnoException));
  }
  const { status } = answer;
  const verdict = () =>
    status >= 200 && status < 300
      ? null
      : status >= 300 && status < 400
        ? `HTTP ${status} (redirects are not followed)`
        : `HTTP ${status}`;
  // The status is the answer: at most 64 kB of the body is read, a receiver streaming more is cut off.
  let read = 0;
  try {
    for await (const chunk of answer.body) {
      read += (chunk as Buffer).length;
      if (read > MAX_RESPONSE_BYTES) break;
    }
  } catch {
    // A body cut off (deadline, reset) changes nothing: the status came.
  } finally {
    // Only a body not read to its end is cut: a complete one's socket is back in the keep-alive pool.
    if (!answer.body.complete) answer.body.destroy();
  }
  return done(status, verdict());
}
