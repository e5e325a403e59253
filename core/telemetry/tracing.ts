/**
 * OpenTelemetry traces. Code everywhere records spans through @opentelemetry/api, which is a
 * no-op until an SDK is registered; the SDK (@opentelemetry/sdk-node, OTLP over HTTP/JSON) is
 * imported and started only when OTEL_EXPORTER_OTLP_ENDPOINT is set, so tracing costs nothing
 * when off. The server, the worker and every sandbox process each start their own.
 *
 * A job's trace: the HTTP request's span, then (through the queue entry's `traceparent`) the
 * queue wait and the run, the sandbox run, and (through the run message into the sandbox
 * process) each engine call. Attributes are ids, plugin ids, formats and sizes: never file
 * names, keys or passwords.
 */
import {
  INVALID_SPAN_CONTEXT,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  context,
  propagation,
  trace,
  type Attributes,
  type Context,
  type Span,
} from '@opentelemetry/api';

export { SpanKind, type Span };

const tracer = trace.getTracer('transmute');
/** What recording code gets while tracing is off: a span that records nothing. */
const NOT_RECORDING = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);
let started: { flush(): Promise<void>; shutdown(): Promise<void> } | undefined;

/** The span of the work in progress, if any (to add what is learnt on the way: an output's size). */
export const activeSpan = (): Span | undefined => trace.getActiveSpan();

/** Whether traces are exported from this process (the SDK was started). */
export const tracingEnabled = (): boolean => started !== undefined;

/** Whether the environment asks for traces: an OTLP endpoint is set and the SDK is not disabled. */
export function tracingRequested(env: NodeJS.ProcessEnv = process.env): boolean {
  return (
    Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) &&
    env.OTEL_SDK_DISABLED?.trim().toLowerCase() !== 'true'
  );
}

/**
 * Start exporting traces when OTEL_EXPORTER_OTLP_ENDPOINT is set (the standard OTEL_* variables
 * apply: OTEL_SERVICE_NAME, OTEL_EXPORTER_OTLP_HEADERS, OTEL_TRACES_SAMPLER...). OTLP over HTTP,
 * JSON unless OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL says http/protobuf. Metrics stay on /metrics
 * (Prometheus) and logs on stdout, so only traces are exported.
 */
export async function startTracing(serviceName: string, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  if (started || !tracingRequested(env)) return;
  const protocol = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL;
  const [{ NodeSDK }, { OTLPTraceExporter }] = await Promise.all([
    import('@opentelemetry/sdk-node'),
    protocol === 'http/protobuf'
      ? import('@opentelemetry/exporter-trace-otlp-proto')
      : import('@opentelemetry/exporter-trace-otlp-http'),
  ]);
  const exporter = new OTLPTraceExporter();
  const sdk = new NodeSDK({
    serviceName: env.OTEL_SERVICE_NAME ?? serviceName,
    traceExporter: exporter,
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [],
  });
  sdk.start();
  started = { flush: () => exporter.forceFlush(), shutdown: () => sdk.shutdown() };
}

/** Export the spans ended so far now (a sandbox process after a run; never throws). */
export async function flushTraces(): Promise<void> {
  await started?.flush().catch(() => undefined);
}

/** Export what is left and stop (at process exit; never throws). */
export async function stopTracing(): Promise<void> {
  const sdk = started;
  started = undefined;
  await sdk?.shutdown().catch(() => undefined);
}

/** Run `fn` in a new span (child of the active one); the span ends when `fn` settles, with its error recorded. */
export async function withSpan<T>(
  name: string,
  attributes: Attributes,
  fn: (span: Span) => Promise<T>,
  options: { kind?: SpanKind } = {},
): Promise<T> {
  if (!started) return fn(NOT_RECORDING);
  return tracer.startActiveSpan(
    name,
    { attributes, ...(options.kind !== undefined ? { kind: options.kind } : {}) },
    async (span) => {
      try {
        return await fn(span);
      } catch (err) {
        failSpan(span, err);
        throw err;
      } finally {
        span.end();
      }
    },
  );
}

/** A span that already happened (e.g. a job's queue wait, from acceptance to start). */
export function recordSpan(name: string, attributes: Attributes, startTime: Date, endTime: Date): void {
  if (!started) return;
  tracer.startSpan(name, { attributes, startTime }).end(endTime);
}

/** A span ended by the caller (an engine process, an HTTP request). */
export function startSpan(
  name: string,
  attributes: Attributes,
  options: { kind?: SpanKind; parent?: Context } = {},
): Span {
  if (!started) return NOT_RECORDING;
  return tracer.startSpan(
    name,
    { attributes, ...(options.kind !== undefined ? { kind: options.kind } : {}) },
    options.parent ?? context.active(),
  );
}

export function failSpan(span: Span, err: unknown): void {
  // The error's class only: messages may hold paths or an engine's stderr (the logs have them).
  span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.name : 'error' });
}

/** The active span's context as W3C headers (`traceparent`, `tracestate`), to carry across a queue or a process. */
export function traceCarrier(): Record<string, string> {
  if (!started) return {};
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier;
}

/** The context a carrier describes (no parent when it carries none), e.g. from request headers. */
export function contextFrom(carrier: Record<string, unknown> | undefined): Context {
  if (!started || !carrier) return ROOT_CONTEXT;
  const headers: Record<string, string> = {};
  for (const key of ['traceparent', 'tracestate']) if (typeof carrier[key] === 'string') headers[key] = carrier[key];
  return propagation.extract(ROOT_CONTEXT, headers);
}

/** Run `fn` with the span context a carrier describes as its parent. */
export function withRemoteParent<T>(carrier: Record<string, unknown> | undefined, fn: () => T): T {
  if (!started) return fn();
  return context.with(contextFrom(carrier), fn);
}

/** Run `fn` with `span` active (a callback-style continuation, e.g. Fastify's `done`). */
export function withActiveSpan<T>(span: Span, parent: Context, fn: () => T): T {
  return context.with(trace.setSpan(parent, span), fn);
}
