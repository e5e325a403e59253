/**
 * Where the server may connect on a client's behalf: webhooks, URL imports, page rendering.
 *
 * A URL's host is resolved, every address it resolves to must be public, and the connection is
 * made to the address that was checked (`pinnedLookup` answers with it), so a DNS answer that
 * changes between the check and the connect (rebinding) cannot reach an internal service.
 * Refused: loopback, private, shared (CGNAT), link-local, unique-local, multicast, reserved and
 * documentation ranges, IPv4 embedded in IPv6 (mapped, compatible, NAT64) when the embedded
 * address is refused. `allowPrivate` (for tests and intranets) admits them and plain http; cloud
 * metadata addresses are refused always.
 */
import { lookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import net from 'node:net';

export interface DestinationPolicy {
  /** Private and loopback addresses and plain http are allowed (never metadata). */
  allowPrivate: boolean;
}

export const MAX_URL_LENGTH = 2048;

/** A URL or address the server may not connect to; the message is safe to show the client. */
export class DestinationRefused extends Error {
  override name = 'DestinationRefused';
}

const METADATA = new net.BlockList();
// AWS/GCP/Azure/OpenStack, AWS ECS task metadata, Alibaba Cloud, AWS IMDS over IPv6.
for (const address of ['169.254.169.254', '169.254.170.2', '100.100.100.200']) METADATA.addAddress(address, 'ipv4');
METADATA.addAddress('fd00:ec2::254', 'ipv6');

const NON_PUBLIC = new net.BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  NON_PUBLIC.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const)
  NON_PUBLIC.addSubnet(network, prefix, 'ipv6');

/**
 * The IPv4 address inside an IPv4-mapped (::ffff:a.b.c.d), -compatible (::a.b.c.d) or NAT64 (64:ff9b::/96) IPv6
 * address.
 */
function embeddedIpv4(address: string): string | null {
  const groups = expandIpv6(address);
  if (!groups) return null;
  const v4 = () => `${groups[6]! >> 8}.${groups[6]! & 255}.${groups[7]! >> 8}.${groups[7]! & 255}`;
  const zeros = (from: number, to: number) => groups.slice(from, to).every((g) => g === 0);
  if (zeros(0, 5) && (groups[5] === 0xffff || (groups[5] === 0 && (groups[6] !== 0 || groups[7]! > 1)))) return v4();
  if (groups[0] === 0x64 && groups[1] === 0xff9b && zeros(2, 6)) return v4();
  return null;
}

function expandIpv6(address: string): number[] | null {
  let text = address.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const parts = dotted[1]!.split('.').map(Number);
    const high = ((parts[0]! << 8) | parts[1]!).toString(16);
    const low = ((parts[2]! << 8) | parts[3]!).toString(16);
    text = `${text.slice(0, dotted.index)}${high}:${low}`;
  }
  const [head, tail] = text.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const missing = 8 - left.length - right.length;
  if (text.includes('::') ? missing < 0 : missing !== 0) return null;
  return [...left, ...Array<string>(text.includes('::') ? missing : 0).fill('0'), ...right].map((g) => parseInt(g, 16));
}

export type AddressClass = 'public' | 'private' | 'metadata';

/** Whether an IP address is public, non-public (loopback, private, link-local...) or a cloud metadata address. */
export function classifyAddress(address: string): AddressClass {
  const family = net.isIP(address);
  if (family === 0) return 'private';
  if (family === 6) {
    const inner = embeddedIpv4(address);
    if (inner) return classifyAddress(inner);
    if (METADATA.check(address, 'ipv6')) return 'metadata';
    return NON_PUBLIC.check(address, 'ipv6') ? 'private' : 'public';
  }
  if (METADATA.check(address, 'ipv4')) return 'metadata';
  return NON_PUBLIC.check(address, 'ipv4') ? 'private' : 'public';
}

/**
 * Syntax and scheme: https (http too with allowPrivate), no credentials, at most 2048 characters. `label` starts
 * messages ("Webhook URL").
 */
export function parseDestinationUrl(raw: string, policy: DestinationPolicy, label: string): URL {
  if (typeof raw !== 'string' || raw.length > MAX_URL_LENGTH)
    throw new DestinationRefused(`${label} must be a URL of at most ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new DestinationRefused(`${label} is not a valid URL`);
  }
  if (url.protocol !== 'https:' && !(policy.allowPrivate && url.protocol === 'http:')) {
    throw new DestinationRefused(`${label} must use https`);
  }
  if (url.username || url.password) throw new DestinationRefused(`${label} must not carry a user name or password`);
  url.hash = '';
  return url;
}

function checkAddress(address: string, policy: DestinationPolicy, host: string, label: string): void {
  const kind = classifyAddress(address);
  if (kind === 'metadata') throw new DestinationRefused(`${label} refused: ${host} is a cloud metadata address`);
  if (kind === 'private' && !policy.allowPrivate) {
    throw new DestinationRefused(
      `${label} refused: ${host} resolves to a loopback, private, link-local or reserved address`,
    );
  }
}

export interface Destination {
  address: string;
  family: 4 | 6;
}

/**
 * Every address the URL's host resolves to, checked; the first is the one to connect to. An IP
 * literal is checked as it is.
 */
export async function resolveDestination(url: URL, policy: DestinationPolicy, label: string): Promise<Destination> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const literal = net.isIP(host);
  if (literal) {
    checkAddress(host, policy, host, label);
    return { address: host, family: literal as 4 | 6 };
  }
  let answers: Array<{ address: string; family: number }>;
  try {
    answers = await lookup(host, { all: true, verbatim: true });
  } catch {
    throw new DestinationRefused(`${label} refused: ${host} could not be resolved`);
  }
  if (!answers.length) throw new DestinationRefused(`${label} refused: ${host} could not be resolved`);
  for (const { address } of answers) checkAddress(address, policy, host, label);
  return { address: answers[0]!.address, family: answers[0]!.family === 6 ? 6 : 4 };
}

/** A `lookup` for http(s).request that answers with the checked address, whatever DNS says now. */
export function pinnedLookup(destination: Destination): LookupFunction {
  return ((_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address: destination.address, family: destination.family }]);
    else callback(null, destination.address, destination.family);
  }) as LookupFunction;
}

let processPolicy: DestinationPolicy = { allowPrivate: false };

/**
 * This process's policy for requests made on a client's behalf by runs (URL rendering): set at
 * start-up from IMPORT_ALLOW_PRIVATE (server) or the sandbox settings (sandbox processes).
 */
export function configureOutboundPolicy(policy: DestinationPolicy): void {
  processPolicy = { allowPrivate: policy.allowPrivate };
}

export function outboundPolicy(): DestinationPolicy {
  return processPolicy;
}

/** The deadline of a checked request passed (before the answer, or while its body was read). */
export class OutboundTimeout extends Error {
  override name = 'OutboundTimeout';
}

export interface CheckedRequest {
  url: string;
  method?: 'GET' | 'HEAD' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  policy: DestinationPolicy;
  /** Starts refusal messages: "Import URL", "Webhook URL". */
  label: string;
  /** One deadline for the whole exchange: connection, redirects, headers and the body's last byte. */
  timeoutMs: number;
  /** The caller's own stop (cancel, shutdown): the request or body fails with its reason. */
  signal?: AbortSignal;
  /** Redirects followed, each target checked again like the first URL; 0 (default): a redirect is the answer. */
  maxRedirects?: number;
  agent?: http.Agent;
}

/** An answer whose headers are in; `body` streams (the caller reads or destroys it) and fails at the deadline. */
export interface CheckedAnswer {
  /** The URL that answered (after redirects). */
  url: URL;
  status: number;
  headers: http.IncomingHttpHeaders;
  body: http.IncomingMessage;
}

/**
 * The one outbound request of the server (URL imports, webhooks, page rendering): the URL and
 * every address it resolves to are checked, the connection goes to the checked address (no DNS
 * rebinding), at most `maxRedirects` redirects are followed (each target checked again), and one
 * deadline covers the whole exchange. Throws DestinationRefused (policy, resolution, redirects),
 * OutboundTimeout, or the connection's own error (see connectionError).
 */
export async function requestChecked(request: CheckedRequest): Promise<CheckedAnswer> {
  const { policy, label, timeoutMs } = request;
  const deadline = AbortSignal.timeout(timeoutMs);
  const signal = request.signal ? AbortSignal.any([deadline, request.signal]) : deadline;
  const stopped = () =>
    deadline.aborted
      ? new OutboundTimeout(`${label} did not answer within ${Math.round(timeoutMs / 1000)} s`)
      : (request.signal?.reason ?? new Error('Aborted'));
  const maxRedirects = request.maxRedirects ?? 0;
  let url = parseDestinationUrl(request.url, policy, label);
  for (let redirects = 0; ; redirects++) {
    const destination = await resolveDestination(url, policy, label);
    if (signal.aborted) throw stopped();
    const response = await send(url, destination, request, signal, stopped);
    const status = response.statusCode ?? 0;
    const location = response.headers.location;
    if (maxRedirects > 0 && status >= 300 && status < 400 && location) {
      response.resume();
      if (redirects >= maxRedirects)
        throw new DestinationRefused(`${label} failed: more than ${maxRedirects} redirects`);
      let next: URL;
      try {
        next = new URL(location, url);
      } catch {
        throw new DestinationRefused(`${label} failed: the server redirected to an invalid URL`);
      }
      url = parseDestinationUrl(next.toString(), policy, label);
      continue;
    }
    // The deadline (and the caller's stop) covers the body too.
    const onStop = () => response.destroy(stopped());
    if (signal.aborted) onStop();
    else {
      signal.addEventListener('abort', onStop, { once: true });
      response.once('close', () => signal.removeEventListener('abort', onStop));
    }
    return { url, status, headers: response.headers, body: response };
  }
}

function send(
  url: URL,
  destination: Destination,
  request: CheckedRequest,
  signal: AbortSignal,
  stopped: () => Error,
): Promise<http.IncomingMessage> {
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.request(url, {
      method: request.method ?? 'GET',
      headers: request.headers ?? {},
      // The connection goes to the address checked, whatever DNS answers now.
      lookup: pinnedLookup(destination),
      ...(request.agent ? { agent: request.agent } : {}),
    });
    const onStop = () => req.destroy(stopped());
    signal.addEventListener('abort', onStop, { once: true });
    req.once('response', (response) => {
      signal.removeEventListener('abort', onStop);
      resolve(response);
    });
    req.once('error', (err) => {
      signal.removeEventListener('abort', onStop);
      reject(err);
    });
    req.end(request.body);
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
