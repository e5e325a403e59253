/**
 * Where the time of one HTML -> PDF conversion goes, end to end, at 1 and 4 clients: the bench
 * server runs with tracing on (OTLP over HTTP/JSON to a receiver in this process, on 127.0.0.1),
 * clients convert the bench invoice in closed loops, and each job's spans (HTTP accept, queue wait,
 * sandbox lease, the run in the sandbox process, Chromium's lease, page, load, print, release,
 * storage) are put on one timeline with the client's own timestamps. Prints the median of each
 * phase. Tracing adds a little work per span: the phases are what to compare, not the total.
 *
 *     npx tsx bench/chromium-trace.ts [seconds per level, default 20]
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { invoiceFiles, zipOf } from '../plugins/web/testing/invoice.js';
import { closedLoop, convertTimed } from './lib/client.js';
import { cpuByKind, cpuReport } from './lib/cpu.js';
import { startBenchServer } from './lib/server.js';
import { percentile } from './lib/stats.js';

interface SpanRecord {
  traceId: string;
  name: string;
  start: number;
  end: number;
  attributes: Record<string, string>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
}
interface OtlpSpan {
  traceId: string;
  name: string;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes?: Array<{ key: string; value: OtlpValue }>;
}
interface OtlpExport {
  resourceSpans?: Array<{ scopeSpans?: Array<{ spans?: OtlpSpan[] }> }>;
}

const ms = (nanos: string) => Number(BigInt(nanos) / 1000n) / 1000;

/** An OTLP/HTTP JSON traces receiver keeping every span. */
async function startReceiver(): Promise<{ url: string; spans: SpanRecord[]; close(): void }> {
  const spans: SpanRecord[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpExport;
        for (const resource of body.resourceSpans ?? [])
          for (const scope of resource.scopeSpans ?? [])
            for (const span of scope.spans ?? [])
              spans.push({
                traceId: span.traceId,
                name: span.name,
                start: ms(span.startTimeUnixNano),
                end: ms(span.endTimeUnixNano),
                attributes: Object.fromEntries(
                  (span.attributes ?? []).map((a) => [a.key, String(a.value.stringValue ?? a.value.intValue ?? '')]),
                ),
              });
      } catch {
        // not JSON: ignored
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    close: () => server.close(),
  };
}

interface ClientRecord {
  jobId: string;
  start: number;
  accepted: number;
  end: number;
}

/** Named moments of one job, in ms since the client started it. */
function timeline(client: ClientRecord, spans: SpanRecord[]): Record<string, number> | undefined {
  const run = spans.find((s) => s.name === 'job.run' && s.attributes['transmute.job.id'] === client.jobId);
  if (!run) return undefined;
  const trace = spans.filter((s) => s.traceId === run.traceId);
  const first = (name: string) => trace.find((s) => s.name === name);
  const at: Record<string, number> = { 'client sends': 0 };
  const mark = (label: string, value: number | undefined) => {
    if (value !== undefined) at[label] = value - client.start;
  };
  mark('job accepted (created)', first('job.queue_wait')?.start);
  mark('dispatched (run starts)', run.start);
  mark('sandbox lease asked', first('sandbox.acquire')?.start);
  mark('sandbox leased', first('sandbox.acquire')?.end);
  mark('chromium lease asked (in sandbox)', first('chromium.acquire')?.start);
  mark('chromium leased', first('chromium.acquire')?.end);
  mark('fresh page', first('chromium.context')?.end);
  mark('page ready', first('chromium.load')?.end);
  mark('pdf written', first('chromium.output')?.end);
  mark('chromium released', first('chromium.release')?.end);
  mark('sandbox has the answer', first('sandbox.release')?.start);
  mark('sandbox released', first('sandbox.release')?.end);
  mark('output stored', first('job.store_output')?.end);
  mark('job done in store', first('job.complete')?.end);
  mark('run ends', run.end);
  mark('POST answered (Prefer: wait)', trace.find((s) => s.name.startsWith('POST '))?.end);
  mark('client has the answer', client.accepted);
  mark('client has the PDF', client.end);
  return at;
}

function report(label: string, clients: ClientRecord[], spans: SpanRecord[]): void {
  const lines = clients.map((c) => timeline(c, spans)).filter((t): t is Record<string, number> => t !== undefined);
  console.log(`\n${label}: ${clients.length} conversions, ${lines.length} traced`);
  if (!lines.length) return;
  const labels = Object.keys(lines[0]!);
  let previous = 0;
  for (const name of labels) {
    const values = lines.map((l) => l[name]).filter((v): v is number => v !== undefined);
    if (!values.length) continue;
    const median = percentile(values, 50);
    console.log(
      `  ${name.padEnd(36)} at p50 ${median.toFixed(0).padStart(5)} ms  ` +
        `(+${(median - previous).toFixed(0).padStart(4)})` +
        `  p90 ${percentile(values, 90).toFixed(0).padStart(5)} ms`,
    );
    previous = median;
  }
}

const seconds = Number(process.argv[2] ?? 20);
const receiver = await startReceiver();
const server = await startBenchServer('chromium-trace', {
  OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
  OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
  // Spans leave the server at once rather than in 5 s batches.
  OTEL_BSP_SCHEDULE_DELAY: '200',
});
try {
  const zip = { name: 'invoice.zip', data: await zipOf(await invoiceFiles()) };
  const convert = async (records: ClientRecord[]) => {
    const start = Date.now();
    const timing = await convertTimed(server.url, server.key, zip, { to: 'pdf' }, 120_000, { preferWaitS: 60 });
    records.push({ jobId: timing.jobId, start, accepted: start + timing.acceptMs, end: start + timing.totalMs });
    return timing;
  };
  const warmup: ClientRecord[] = [];
  for (let i = 0; i < 4; i++) await convert(warmup);
  await Promise.all([1, 2].map(() => convert(warmup)));
  for (const clients of [1, 4]) {
    const records: ClientRecord[] = [];
    const before = await cpuByKind([server.pid, process.pid]);
    const run = await closedLoop(clients, seconds, () => convert(records));
    const after = await cpuByKind([server.pid, process.pid]);
    console.log(
      `\n${clients} client(s): ${(run.latencies.length / seconds).toFixed(2)} docs/s, p50 ` +
        `${percentile(run.latencies, 50).toFixed(0)} ms`,
    );
    cpuReport(before, after, records.length);
    await sleep(2_000);
    report(`${clients} client(s)`, records, receiver.spans);
  }
} finally {
  await server.stop();
  receiver.close();
}
