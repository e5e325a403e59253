/**
 * What the HTTP host adds for operators: every request counted and timed by route template
 * (never the raw URL), a span per request when tracing is on (joining a caller's `traceparent`),
 * and GET /metrics under the access rule of apps/shared/metrics-endpoint.ts.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { recordHttpRequest } from '../../core/telemetry/metrics.js';
import {
  SpanKind,
  contextFrom,
  startSpan,
  tracingEnabled,
  withActiveSpan,
  type Span,
} from '../../core/telemetry/tracing.js';
import type { Config } from '../shared/config.js';
import { METRICS_CONTENT_TYPE, metricsAccess, renderMetrics } from '../shared/metrics-endpoint.js';

const requestSpans = new WeakMap<FastifyRequest, { span: Span; parent: ReturnType<typeof contextFrom> }>();

export function observeRequests(app: FastifyInstance, config: Config): void {
  app.addHook('onResponse', (request, reply, done) => {
    recordHttpRequest(request.routeOptions.url, request.method, reply.statusCode, reply.elapsedTime / 1000);
    const traced = requestSpans.get(request);
    if (traced) {
      traced.span.setAttribute('http.response.status_code', reply.statusCode);
      traced.span.end();
    }
    done();
  });
  if (tracingEnabled()) {
    // The span is made active for the rest of the request; again before the handler, since a
    // body read from the socket's events would otherwise run outside it.
    app.addHook('onRequest', (request, _reply, done) => {
      const route = request.routeOptions.url ?? 'unmatched';
      const parent = contextFrom(request.headers as Record<string, unknown>);
      const span = startSpan(
        `${request.method} ${route}`,
        { 'http.request.method': request.method, 'http.route': route },
        { kind: SpanKind.SERVER, parent },
      );
      requestSpans.set(request, { span, parent });
      withActiveSpan(span, parent, done);
    });
    app.addHook('preHandler', (request, _reply, done) => {
      const traced = requestSpans.get(request);
      if (!traced) return done();
      withActiveSpan(traced.span, traced.parent, done);
    });
  }

  app.get('/metrics', { logLevel: 'warn' }, async (request, reply) => {
    const decision = metricsAccess(
      config.metrics,
      { headers: request.headers, remoteAddress: request.socket.remoteAddress },
      false,
    );
    if (!decision.ok) {
      if (decision.status === 401) reply.header('WWW-Authenticate', 'Bearer');
      return reply.status(decision.status).send({ error: decision.error });
    }
    return reply.type(METRICS_CONTENT_TYPE).send(await renderMetrics());
  });
}
