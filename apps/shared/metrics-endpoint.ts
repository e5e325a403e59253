/**
 * GET /metrics (Prometheus text format) and who may read it:
 * - METRICS_TOKEN set: `Authorization: Bearer <token>` is required wherever it is served;
 * - else METRICS_PORT set: open on that port (keep the port on a private network), not on PORT;
 * - neither: on PORT, to clients on a loopback address only, and not through a proxy (a request
 *   carrying forwarding headers is refused: a reverse proxy on the same machine would otherwise
 *   publish it).
 * The worker has no API: it serves /metrics only on METRICS_PORT.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { METRICS_CONTENT_TYPE, renderMetrics } from '../../core/telemetry/metrics.js';
import type { Config } from './config.js';

export interface MetricsRequest {
  headers: IncomingHttpHeaders;
  remoteAddress: string | undefined;
}

export type MetricsDecision = { ok: true } | { ok: false; status: 401 | 403 | 404; error: string };

const FORWARDING_HEADERS = ['x-forwarded-for', 'forwarded', 'x-real-ip'];

const digest = (value: string) => createHash('sha256').update(value).digest();

function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  return v4 === '::1' || /^127\./.test(v4);
}

/** Whether this request may read /metrics; `onMetricsPort`: it came to METRICS_PORT rather than PORT. */
export function metricsAccess(
  settings: Config['metrics'],
  request: MetricsRequest,
  onMetricsPort: boolean,
): MetricsDecision {
  if (settings.token) {
    const match = /^Bearer (.+)$/i.exec(request.headers.authorization ?? '');
    // Compared as digests: constant time whatever the lengths.
    if (match && timingSafeEqual(digest(match[1]!.trim()), digest(settings.token))) return { ok: true };
    return { ok: false, status: 401, error: 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>' };
  }
  if (settings.port !== undefined) {
    return onMetricsPort ? { ok: true } : { ok: false, status: 404, error: 'Metrics are served on METRICS_PORT' };
  }
  if (!isLoopback(request.remoteAddress) || FORWARDING_HEADERS.some((h) => request.headers[h] !== undefined)) {
    return {
      ok: false,
      status: 403,
      error: 'Metrics are served to loopback clients only; set METRICS_TOKEN or METRICS_PORT to scrape from elsewhere',
    };
  }
  return { ok: true };
}

export { METRICS_CONTENT_TYPE, renderMetrics };

export interface MetricsServer {
  url: string;
  close(): Promise<void>;
}

/** The METRICS_PORT listener: GET /metrics only. */
export async function startMetricsServer(
  settings: Config['metrics'],
  host: string,
): Promise<MetricsServer | undefined> {
  if (settings.port === undefined) return undefined;
  const json = (status: number, body: unknown) => ({
    status,
    type: 'application/json; charset=utf-8',
    body: JSON.stringify(body),
  });
  const server: Server = createServer((req, res) => {
    const pathname = (req.url ?? '/').split('?')[0];
    const answer = async () => {
      if (pathname !== '/metrics') return json(404, { error: 'Not found: this port serves GET /metrics only' });
      if (req.method !== 'GET' && req.method !== 'HEAD') return json(405, { error: 'Use GET /metrics' });
      const decision = metricsAccess(settings, { headers: req.headers, remoteAddress: req.socket.remoteAddress }, true);
      if (!decision.ok) return json(decision.status, { error: decision.error });
      return { status: 200, type: METRICS_CONTENT_TYPE, body: await renderMetrics() };
    };
    answer().then(
      ({ status, type, body }) => {
        res.writeHead(status, { 'content-type': type, ...(status === 401 ? { 'www-authenticate': 'Bearer' } : {}) });
        res.end(req.method === 'HEAD' ? undefined : body);
      },
      () => {
        res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
        res.end(JSON.stringify({ error: 'Metrics could not be collected; try again' }));
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(settings.port, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
