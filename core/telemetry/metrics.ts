/**
 * Every Prometheus metric of a Transmute process, defined once (prom-client). Names carry their
 * units; labels take only values the server chose from bounded sets (a plugin id from the
 * registry, a route template, a plan, a reason), never an account, key, file name or anything a
 * client typed, so the number of series stays bounded whatever clients send.
 *
 * Counters are incremented where things happen (services, the runner, the sandbox pool); gauges
 * and the office pool's counters are read from their owners at scrape time (`setMetricSources`).
 * One registry per process: every process (API, worker) serves its own (docs/observability/).
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export const metricsRegistry = new Registry();

collectDefaultMetrics({ register: metricsRegistry });
// promtool rejects gauges whose names end in _total; the same values stay as nodejs_active_handles etc.
for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'])
  metricsRegistry.removeSingleMetric(name);

/** The prometheus text format's content type. */
export const METRICS_CONTENT_TYPE = metricsRegistry.contentType;

const registers = [metricsRegistry];
/** Seconds: from a fast HTTP answer to an hour-long transcription. */
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const JOB_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600];

/** HTTP methods a route may be called with; anything else is counted as OTHER. */
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

export const SANDBOX_KILL_REASONS = ['deadline', 'memory', 'crash'] as const;
export type SandboxKillReason = (typeof SANDBOX_KILL_REASONS)[number];
export const WEBHOOK_RESULTS = ['delivered', 'retrying', 'failed', 'abandoned'] as const;
export type WebhookResult = (typeof WEBHOOK_RESULTS)[number];

const httpRequests = new Counter({
  name: 'transmute_http_requests_total',
  help: 'HTTP requests answered, by route template, method and status',
  labelNames: ['route', 'method', 'status'],
  registers,
});
const httpDuration = new Histogram({
  name: 'transmute_http_request_duration_seconds',
  help: 'Time to answer an HTTP request (the response sent), by route template and method',
  labelNames: ['route', 'method'],
  buckets: HTTP_BUCKETS,
  registers,
});
const jobsAccepted = new Counter({
  name: 'transmute_jobs_accepted_total',
  help: 'Jobs accepted (charged and queued), by plugin',
  labelNames: ['plugin'],
  registers,
});
const jobsFinished = new Counter({
  name: 'transmute_jobs_finished_total',
  help: 'Jobs finished in this process, by plugin and status (done, failed)',
  labelNames: ['plugin', 'status'],
  registers,
});
const jobDuration = new Histogram({
  name: 'transmute_job_duration_seconds',
  help: 'Run time of a job (start to done or failed), by plugin',
  labelNames: ['plugin'],
  buckets: JOB_BUCKETS,
  registers,
});
const jobWait = new Histogram({
  name: 'transmute_job_wait_seconds',
  help: 'Time a job waited between acceptance and its first start, by plugin',
  labelNames: ['plugin'],
  buckets: JOB_BUCKETS,
  registers,
});
const sandboxKills = new Counter({
  name: 'transmute_sandbox_kills_total',
  help: "Sandbox processes killed at a run's deadline or memory cap, or that crashed under a run",
  labelNames: ['reason'],
  registers,
});
const creditsCharged = new Counter({
  name: 'transmute_credits_charged_total',
  help: 'Credits charged at acceptance (before refunds), by plan',
  labelNames: ['plan'],
  registers,
});
const refunds = new Counter({
  name: 'transmute_credits_refunded_total',
  help: 'Credits given back for failed jobs',
  registers,
});
const webhookDeliveries = new Counter({
  name: 'transmute_webhook_deliveries_total',
  help:
    'Webhook delivery attempts by result: delivered, retrying (failed, retried later), failed (last retry), ' +
    'abandoned (endpoint gone or disabled)',
  labelNames: ['result'],
  registers,
});
const uploadBytes = new Counter({
  name: 'transmute_upload_bytes_total',
  help: 'Bytes of uploaded files stored',
  registers,
});

for (const reason of SANDBOX_KILL_REASONS) sandboxKills.inc({ reason }, 0);
for (const result of WEBHOOK_RESULTS) webhookDeliveries.inc({ result }, 0);

/** What the gauges read at scrape time (structural: this module imports no other layer). */
export interface MetricSources {
  /** The sandbox pool's processes (SandboxPool.status()). */
  sandbox?(): { processes: number; busy: number; waiting: number };
  /** The LibreOffice pool (LibreOfficePool.status()). */
  office?(): {
    listeners: ReadonlyArray<{ state: string }>;
    conversions: number;
    restarts: number;
    recycled: number;
    coldFallbacks: number;
  };
  /** Jobs waiting to start, by plugin, with the oldest one's acceptance time. */
  queue?(): Promise<ReadonlyArray<{ pluginId: string; count: number; oldestAt: Date }>>;
  /** The checks of /readyz: the store and the queue answer, every plugin's engines are installed. */
  readiness?(): Promise<Record<ReadinessCheck, boolean>>;
}

export const READINESS_CHECKS = ['store', 'queue', 'engines', 'disk'] as const;
export type ReadinessCheck = (typeof READINESS_CHECKS)[number];

let sources: MetricSources = {};
let knownPlugins: readonly string[] = [];

/** Where the gauges read from (the runtime sets them once; a runtime that closes clears them). */
export function setMetricSources(next: MetricSources, plugins: readonly string[] = []): void {
  sources = next;
  knownPlugins = plugins;
  // Every plugin's series exist from the start, so rates and increases see their first jobs.
  for (const plugin of plugins) {
    jobsAccepted.inc({ plugin }, 0);
    for (const status of ['done', 'failed']) jobsFinished.inc({ plugin, status }, 0);
  }
}

new Gauge({
  name: 'transmute_queue_depth',
  help: "Jobs accepted and not yet started, by plugin (the whole deployment's queue, as this process sees it)",
  labelNames: ['plugin'],
  registers,
  async collect() {
    this.reset();
    if (!sources.queue) return;
    const rows = await sources.queue();
    for (const plugin of knownPlugins) this.set({ plugin }, 0);
    for (const row of rows) this.set({ plugin: row.pluginId }, row.count);
  },
});
new Gauge({
  name: 'transmute_queue_oldest_waiting_seconds',
  help: 'Age of the oldest job waiting to start (0 when none waits)',
  registers,
  async collect() {
    if (!sources.queue) return this.set(0);
    const rows = await sources.queue();
    const oldest = Math.min(...rows.map((r) => r.oldestAt.getTime()));
    this.set(rows.length ? Math.max(0, (Date.now() - oldest) / 1000) : 0);
  },
});
new Gauge({
  name: 'transmute_sandbox_processes',
  help: 'Sandbox processes by state (idle, busy), and runs waiting for one (waiting)',
  labelNames: ['state'],
  registers,
  collect() {
    const status = sources.sandbox?.();
    this.set({ state: 'idle' }, status ? status.processes - status.busy : 0);
    this.set({ state: 'busy' }, status?.busy ?? 0);
    this.set({ state: 'waiting' }, status?.waiting ?? 0);
  },
});
new Gauge({
  name: 'transmute_ready',
  help: 'The checks of /readyz: 1 passing, 0 failing (store, queue, engines, disk)',
  labelNames: ['check'],
  registers,
  async collect() {
    const checks = await sources.readiness?.();
    for (const check of READINESS_CHECKS) this.set({ check }, checks?.[check] === false ? 0 : 1);
  },
});
const LISTENER_STATES = ['stopped', 'starting', 'idle', 'busy', 'down'];
new Gauge({
  name: 'transmute_office_listeners',
  help: 'Warm LibreOffice listeners by state',
  labelNames: ['state'],
  registers,
  collect() {
    const listeners = sources.office?.().listeners ?? [];
    for (const state of LISTENER_STATES) this.set({ state }, listeners.filter((l) => l.state === state).length);
  },
});
/** A counter kept by its owner (the office pool): read at scrape time. */
function ownedCounter(
  name: string,
  help: string,
  read: (office: NonNullable<ReturnType<NonNullable<MetricSources['office']>>>) => number,
): void {
  new Counter({
    name,
    help,
    registers,
    collect() {
      const office = sources.office?.();
      this.reset();
      this.inc(office ? read(office) : 0);
    },
  });
}
ownedCounter(
  'transmute_office_conversions_total',
  'Conversions done by warm LibreOffice listeners',
  (o) => o.conversions,
);
ownedCounter(
  'transmute_office_restarts_total',
  'LibreOffice listeners replaced after a crash, a hang, a deadline or an abort',
  (o) => o.restarts,
);
ownedCounter(
  'transmute_office_recycled_total',
  'LibreOffice listeners recycled after their conversion count or memory limit',
  (o) => o.recycled,
);
ownedCounter(
  'transmute_office_cold_fallbacks_total',
  'Office conversions sent to a cold soffice (pool fallen back, or no listener)',
  (o) => o.coldFallbacks,
);

/**
 * The label sets of the HTTP metrics, made once per route, method and status: every request answered is counted, and
 * a label object built per request (and the hidden classes V8 makes for it) showed in the poll's profile.
 */
const httpLabels = new Map<string, { requests: Record<string, string>; duration: Record<string, string> }>();

/** The label of a route: its template as registered (`/api/v1/jobs/:id`), never the raw URL. */
export function recordHttpRequest(route: string | undefined, method: string, status: number, seconds: number): void {
  const known = KNOWN_METHODS.has(method) ? method : 'OTHER';
  const key = `${known} ${status} ${route ?? ''}`;
  let labels = httpLabels.get(key);
  if (!labels) {
    const duration = Object.freeze({ route: route ?? 'unmatched', method: known });
    labels = { requests: Object.freeze({ ...duration, status: String(status) }), duration };
    httpLabels.set(key, labels);
  }
  httpRequests.inc(labels.requests);
  httpDuration.observe(labels.duration, seconds);
}

export const recordJobAccepted = (plugin: string, plan: string, credits: number): void => {
  jobsAccepted.inc({ plugin });
  if (credits > 0) creditsCharged.inc({ plan }, credits);
};
export const recordJobWait = (plugin: string, seconds: number): void =>
  jobWait.observe({ plugin }, Math.max(0, seconds));
export const recordJobFinished = (plugin: string, status: 'done' | 'failed', runSeconds?: number): void => {
  jobsFinished.inc({ plugin, status });
  if (runSeconds !== undefined) jobDuration.observe({ plugin }, runSeconds);
};
export const recordRefund = (credits: number): void => refunds.inc(credits);
export const recordSandboxKill = (reason: SandboxKillReason): void => sandboxKills.inc({ reason });
export const recordWebhookDelivery = (result: WebhookResult): void => webhookDeliveries.inc({ result });
export const recordUploadBytes = (bytes: number): void => uploadBytes.inc(bytes);

/** The exposition, in Prometheus's text format. */
export function renderMetrics(): Promise<string> {
  return metricsRegistry.metrics();
}
