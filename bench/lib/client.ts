/**
 * The client side of the HTTP rows: accept -> done -> download, timed, polling as tightly as a latency-minded client
 * would.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { authHeaders, submitConvert } from '../../test/helpers.js';

/**
 * Benchmark clients poll every 10 ms (the spec asks real clients for 1 to 2 s; here the poll would otherwise dominate).
 */
export const POLL_MS = 10;

export interface ConvertTiming {
  totalMs: number;
  acceptMs: number;
  jobId: string;
}

/** One conversion through the API; throws on any failure so a row never counts a broken run as fast. */
export async function convertTimed(
  url: string,
  key: string,
  file: { name: string; data: Buffer },
  fields: Record<string, string>,
  timeoutMs = 120_000,
): Promise<ConvertTiming> {
  const started = performance.now();
  const submitted = await submitConvert(url, key, file, fields);
  if (submitted.status !== 200)
    throw new Error(`convert answered ${submitted.status}: ${JSON.stringify(submitted.body)}`);
  const acceptMs = performance.now() - started;
  const jobUrl = `${url}/api/v1/jobs/${submitted.body.jobId}`;
  for (;;) {
    const res = await fetch(jobUrl, { headers: authHeaders(key) });
    const body = (await res.json()) as { status: string; downloadUrl?: string; error?: string };
    if (res.status !== 200) throw new Error(`poll answered ${res.status}: ${JSON.stringify(body)}`);
    if (body.status === 'failed') throw new Error(`job failed: ${body.error}`);
    if (body.status === 'done') {
      const got = await fetch(body.downloadUrl!);
      await got.arrayBuffer();
      if (got.status !== 200) throw new Error(`download answered ${got.status}`);
      return { totalMs: performance.now() - started, acceptMs, jobId: submitted.body.jobId };
    }
    if (performance.now() - started > timeoutMs) throw new Error(`job still ${body.status} after ${timeoutMs} ms`);
    await sleep(POLL_MS);
  }
}

/**
 * `clients` loops converting for `seconds`; returns every completed conversion's latency and
 * completion time (ms since the start). Conversions still running at the end are awaited but not counted.
 */
export async function closedLoop(
  clients: number,
  seconds: number,
  convert: () => Promise<ConvertTiming>,
): Promise<{ latencies: number[]; acceptances: number[]; completedAt: number[]; elapsedMs: number }> {
  const latencies: number[] = [];
  const acceptances: number[] = [];
  const completedAt: number[] = [];
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < deadline) {
        const { totalMs, acceptMs } = await convert();
        const at = performance.now() - started;
        if (at <= seconds * 1000) {
          latencies.push(totalMs);
          acceptances.push(acceptMs);
          completedAt.push(at);
        }
      }
    }),
  );
  return { latencies, acceptances, completedAt, elapsedMs: seconds * 1000 };
}

/** Conversions per second in consecutive windows of `windowMs`, for the spread of a throughput. */
export function windowRates(completedAt: readonly number[], elapsedMs: number, windowMs: number): number[] {
  const windows = Math.max(1, Math.floor(elapsedMs / windowMs));
  const counts = new Array<number>(windows).fill(0);
  for (const at of completedAt) {
    const w = Math.floor(at / windowMs);
    if (w < windows) counts[w]!++;
  }
  return counts.map((n) => n / (windowMs / 1000));
}
