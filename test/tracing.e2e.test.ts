/**
 * OpenTelemetry traces: a server (its own process, as in production) exports OTLP/HTTP JSON to a
 * receiver in this test. One job's spans share one trace id from the HTTP request through the
 * queue wait, the run and the sandbox run to the engine call in the sandbox process, and no span
 * carries the file name or the key.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, download, spawnServer, submitConvert, waitForJob, type ChildServer } from './helpers.js';

interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  service: string;
  attributes: Record<string, unknown>;
}

/** OTLP/HTTP JSON (opentelemetry-proto's JSON mapping): resourceSpans -> scopeSpans -> spans. */
function decode(body: any): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of body.resourceSpans ?? []) {
    const resource = attributesOf(resourceSpans.resource?.attributes);
    for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
      for (const span of scopeSpans.spans ?? []) {
        spans.push({
          traceId: span.traceId,
          spanId: span.spanId,
          ...(span.parentSpanId ? { parentSpanId: span.parentSpanId } : {}),
          name: span.name,
          service: String(resource['service.name']),
          attributes: attributesOf(span.attributes),
        });
      }
    }
  }
  return spans;
}

function attributesOf(
  list: Array<{ key: string; value: Record<string, unknown> }> | undefined,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { key, value } of list ?? []) {
    const [kind, raw] = Object.entries(value)[0] ?? [];
    out[key] = kind === 'intValue' ? Number(raw) : raw;
  }
  return out;
}

async function pdfWithText(text: string): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([300, 200]);
  page.drawText(text, { x: 20, y: 100, size: 14, font: await doc.embedFont(StandardFonts.Helvetica) });
  return Buffer.from(await doc.save());
}

describe('OpenTelemetry traces', () => {
  const received: ReceivedSpan[] = [];
  const paths = new Set<string>();
  let receiver: Server;
  let server: ChildServer;
  let dataDir: string;
  let key: string;

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        paths.add(`${req.method} ${req.url} ${req.headers['content-type']}`);
        received.push(...decode(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const { port } = receiver.address() as AddressInfo;
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'transmute-tracing-'));
    server = await spawnServer({
      DATA_DIR: dataDir,
      WORKERS: '1',
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
      OTEL_BSP_SCHEDULE_DELAY: '100',
      LOG_LEVEL: 'warn',
    });
    key = (await admin(dataDir, 'create-key', '--plan', 'pro')).result.key;
  }, 120_000);
  afterAll(async () => {
    await server?.kill('SIGTERM');
    await new Promise<void>((resolve) => (receiver ? receiver.close(() => resolve()) : resolve()));
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('links one job from the request through the queue and the sandbox to the engine call, with no file name or key', {
    timeout: 120_000,
  }, async () => {
    const filename = 'quarterly-secret-report.pdf';
    const submitted = await submitConvert(
      server.url,
      key,
      { name: filename, data: await pdfWithText('Observable text') },
      { to: 'pdf', op: 'pdf-to-text' },
    );
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(200);
    const { jobId } = submitted.body;
    const job = await waitForJob(server.url, key, jobId);
    expect(job).toMatchObject({ status: 'done' });
    expect((await download((job as { downloadUrl: string }).downloadUrl)).data.toString('utf8')).toContain(
      'Observable text',
    );

    // Spans leave in batches (every 100 ms here): wait for the engine's, exported by the sandbox process.
    const deadline = Date.now() + 30_000;
    const ofJob = () => {
      const run = received.find((s) => s.name === 'job.run' && s.attributes['transmute.job.id'] === jobId);
      return run ? received.filter((s) => s.traceId === run.traceId) : [];
    };
    while (!ofJob().some((s) => s.name === 'engine pdftotext') && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 200));
    const spans = ofJob();
    const byName = (name: string) => spans.find((s) => s.name === name);

    // One trace: request -> (queue) -> wait and run -> sandbox run -> engine calls (in the sandbox process).
    const request = byName('POST /api/v1/convert');
    const run = byName('job.run');
    const sandbox = byName('sandbox.run');
    const engine = byName('engine pdftotext');
    expect(request, JSON.stringify(spans.map((s) => s.name))).toBeDefined();
    expect(byName('job.queue_wait')?.parentSpanId).toBe(request!.spanId);
    expect(run?.parentSpanId).toBe(request!.spanId);
    expect(sandbox?.parentSpanId).toBe(run!.spanId);
    expect(engine?.parentSpanId).toBe(sandbox!.spanId);
    expect(engine!.service).toBe('transmute-sandbox');
    expect(request!.service).toBe('transmute-api');
    expect(engine!.attributes).toMatchObject({ 'process.executable.name': 'pdftotext', 'process.exit.code': 0 });
    expect(run!.attributes).toMatchObject({
      'transmute.job.id': jobId,
      'transmute.plugin': 'pdf-to-text',
      'transmute.input.format': 'pdf',
      'transmute.output.format': 'txt',
    });
    expect(run!.attributes['transmute.input.bytes']).toBeGreaterThan(0);
    expect(run!.attributes['transmute.output.bytes']).toBeGreaterThan(0);

    // Nothing a client named or holds as a secret, in any span of any trace.
    const everything = JSON.stringify(received);
    expect(everything).not.toContain('quarterly-secret-report');
    expect(everything).not.toContain(key);
    expect([...paths]).toContain('POST /v1/traces application/json');
  });
});
