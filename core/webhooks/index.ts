/**
 * Standard Webhooks signing (https://www.standardwebhooks.com), shared by the server that signs
 * and the receivers that verify: `import { verifyWebhook } from 'transmute/webhooks'`.
 *
 * A secret is `whsec_` + base64 of random bytes; the key is the decoded bytes. Each request
 * carries `webhook-id` (stable across retries: the receiver's idempotency key),
 * `webhook-timestamp` (Unix seconds of this attempt) and `webhook-signature`: one or more
 * space-separated `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">` (two while a rotated
 * secret still signs). Node built-ins only, so a receiver can copy this file as it is.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const WEBHOOK_SECRET_PREFIX = 'whsec_';
/** How far a receiver accepts `webhook-timestamp` from its own clock, by default (the spec's 5 minutes). */
export const DEFAULT_TOLERANCE_SECONDS = 300;

export class WebhookVerificationError extends Error {
  override name = 'WebhookVerificationError';
}

function keyOf(secret: string): Buffer {
  const encoded = secret.startsWith(WEBHOOK_SECRET_PREFIX) ? secret.slice(WEBHOOK_SECRET_PREFIX.length) : secret;
  const key = Buffer.from(encoded, 'base64');
  if (!key.length) throw new WebhookVerificationError('The webhook secret is empty or not base64');
  return key;
}

/** `v1,<base64 signature>` of one message under one secret. */
export function signWebhook(secret: string, id: string, timestampSeconds: number, body: string): string {
  return `v1,${createHmac('sha256', keyOf(secret)).update(`${id}.${timestampSeconds}.${body}`).digest('base64')}`;
}

type HeaderBag = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderBag, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const bag = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(bag).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : bag[key];
  return Array.isArray(value) ? value[0] : value;
}

export interface VerifyOptions {
  /** Default 300 s. */
  toleranceSeconds?: number;
  /** For tests: the receiver's clock, in milliseconds. */
  now?: number;
}

/**
 * Checks a webhook request and returns its parsed body (`{type, timestamp, data}`). Throws
 * WebhookVerificationError when a header is missing, the timestamp is outside the tolerance, or
 * no signature matches (compared in constant time). `body` is the raw request body, exactly as
 * received: re-serialised JSON does not verify.
 */
export function verifyWebhook<T = { type: string; timestamp: string; data: unknown }>(
  secret: string,
  headers: HeaderBag,
  body: string | Buffer,
  options: VerifyOptions = {},
): T {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures)
    throw new WebhookVerificationError('Missing webhook-id, webhook-timestamp or webhook-signature');
  if (!/^\d{1,12}$/.test(timestamp)) throw new WebhookVerificationError('Invalid webhook-timestamp');
  const seconds = Number(timestamp);
  const now = Math.floor((options.now ?? Date.now()) / 1000);
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (Math.abs(now - seconds) > tolerance)
    throw new WebhookVerificationError('The webhook-timestamp is outside the tolerance');
  const text = typeof body === 'string' ? body : body.toString('utf8');
  const expected = Buffer.from(signWebhook(secret, id, seconds, text).slice(3), 'base64');
  let valid = false;
  for (const candidate of signatures.split(' ')) {
    const [version, value] = candidate.split(',', 2);
    if (version !== 'v1' || !value) continue;
    const given = Buffer.from(value, 'base64');
    // Every candidate is compared (no early exit), each in constant time.
    if (given.length === expected.length && timingSafeEqual(given, expected)) valid = true;
  }
  if (!valid) throw new WebhookVerificationError('No matching webhook signature');
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new WebhookVerificationError('The webhook body is not JSON');
  }
}
