/**
 * One buffered HTTP(S) request through the server's outbound request (requestChecked: address
 * checked, connection pinned, deadline) with a size cap. Redirects are returned, not followed:
 * the caller checks the next URL again (Chromium's routing does, request by request).
 */
import { requestChecked, type DestinationPolicy } from './outbound.js';

export interface BufferedRequest {
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

export interface BufferedResponse {
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

export async function fetchChecked(request: BufferedRequest): Promise<BufferedResponse> {
  const headers = Object.fromEntries(
    Object.entries(request.headers).filter(
      ([name]) => !DROPPED_REQUEST.has(name.toLowerCase()) && !name.startsWith(':'),
    ),
  );
  const answer = await requestChecked({
    url: request.url,
    method: request.method,
    // Identity: the body is handed to Chromium as it is, without a content-encoding.
    headers: { ...headers, 'accept-encoding': 'identity' },
    policy: request.policy,
    label: request.label,
    timeoutMs: request.timeoutMs,
    signal: request.signal,
  });
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of answer.body) {
    size += (chunk as Buffer).length;
    if (size > request.maxBytes) {
      answer.body.destroy();
      throw new ResponseTooLarge(`${request.label}: the response is larger than ${request.maxBytes} bytes`);
    }
    chunks.push(chunk as Buffer);
  }
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(answer.headers)) {
    if (value === undefined || DROPPED_RESPONSE.has(name)) continue;
    out[name] = Array.isArray(value) ? value.join('\n') : value;
  }
  return { status: answer.status, headers: out, body: Buffer.concat(chunks) };
}
