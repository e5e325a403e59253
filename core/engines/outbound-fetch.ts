/**
 * One HTTP(S) request to a destination the outbound policy allows, connected to the address that
 * was checked (no DNS rebinding), with a deadline and a size cap. Redirects are returned, not
 * followed: the caller checks the next URL again (Chromium's routing does, request by request).
 */
import http from 'node:http';
import https from 'node:https';
import {
  DestinationRefused,
  parseDestinationUrl,
  pinnedLookup,
  resolveDestination,
  type DestinationPolicy,
} from './outbound.js';

export interface CheckedRequest {
  url: string;
  method: 'GET' | 'HEAD';
  headers: Record<string, string>;
  policy: DestinationPolicy;
  signal: AbortSignal;
  timeoutMs: number;
  /** The body may not be larger: past it the request fails. */
  maxBytes: number;
  /** Starts refusal messages: "Page URL". */
  label: string;
}

export interface CheckedResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** Not forwarded either way: hop-by-hop, or describing an encoding we undo or a length that changes. */
const DROPPED_REQUEST = new Set([
  'host',
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'accept-encoding',
  'te',
  'trailer',
]);
const DROPPED_RESPONSE = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-encoding',
  'content-length',
  'trailer',
  'upgrade',
  'alt-svc',
]);

export class ResponseTooLarge extends Error {}

export async function fetchChecked(request: CheckedRequest): Promise<CheckedResponse> {
  const url = parseDestinationUrl(request.url, request.policy, request.label);
  const destination = await resolveDestination(url, request.policy, request.label);
  request.signal.throwIfAborted();
  const headers = Object.fromEntries(
    Object.entries(request.headers).filter(
      ([name]) => !DROPPED_REQUEST.has(name.toLowerCase()) && !name.startsWith(':'),
    ),
  );
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<CheckedResponse>((resolve, reject) => {
    const req = client.request(url, {
      method: request.method,
      // Identity: the body is handed to Chromium as it is, without a content-encoding.
      headers: { ...headers, 'accept-encoding': 'identity' },
      lookup: pinnedLookup(destination),
      signal: request.signal,
      timeout: request.timeoutMs,
    });
    req.on('timeout', () =>
      req.destroy(
        new DestinationRefused(`${request.label} did not answer within ${Math.round(request.timeoutMs / 1000)} s`),
      ),
    );
    req.on('error', reject);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > request.maxBytes)
          return res.destroy(
            new ResponseTooLarge(`${request.label}: the response is larger than ${request.maxBytes} bytes`),
          );
        chunks.push(chunk);
      });
      res.on('error', reject);
      res.on('end', () => {
        const out: Record<string, string> = {};
        for (const [name, value] of Object.entries(res.headers)) {
          if (value === undefined || DROPPED_RESPONSE.has(name)) continue;
          out[name] = Array.isArray(value) ? value.join('\n') : value;
        }
        resolve({ status: res.statusCode ?? 502, headers: out, body: Buffer.concat(chunks) });
      });
    });
    req.end();
  });
}
