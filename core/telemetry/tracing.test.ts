import { describe, expect, it } from 'vitest';
import { startTracing, traceCarrier, tracingEnabled, tracingRequested, withRemoteParent, withSpan } from './tracing.js';

describe('tracing switch', () => {
  it('is requested by an OTLP endpoint, unless the SDK is disabled', () => {
    expect(tracingRequested({})).toBe(false);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: '' })).toBe(false);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe(true);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' })).toBe(
      false,
    );
  });

  it('off: nothing starts, spans cost a function call, and no context is carried', async () => {
    await startTracing('test', {});
    expect(tracingEnabled()).toBe(false);
    expect(await withSpan('x', {}, async (span) => (span.isRecording() ? 'recording' : 'not recording'))).toBe(
      'not recording',
    );
    expect(traceCarrier()).toEqual({});
    expect(withRemoteParent({ traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' }, () => 42)).toBe(
      42,
    );
  });
});
