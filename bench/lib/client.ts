/**
 * The client side of the HTTP rows: accept -> done -> download, timed, polling as tightly as a latency-minded client
 * would.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
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

type JobAnswer = { status: string; jobId: string; downloadUrl?: string; error?: string };

/**
 * node:http on kept-alive sockets, not fetch: fetch's FormData and WHATWG streams cost the client about a millisecond
 * a round trip (bench/NOTES.md, "A tiny image end to end"), which a row would count as the service's.
 */
const agent = new http.Agent({ keepAlive: true });

function request(
  url: string,
  { method = 'GET', headers = {}, body }: { method?: string; headers?: Record<string, string>; body?: Buffer } = {},
): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const sent = http.request(url, { method, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    sent.on('error', reject);
    sent.end(body);
  });
}

/** A multipart/form-data body: the text fields, then the file as `file`. */
function formBody(fields: Record<string, string>, file: { name: string; data: Buffer }) {
  const boundary = `bench-${randomUUID()}`;
  const field = (name: string, value: string) =>
    `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  const head =
    Object.entries(fields)
      .map(([name, value]) => field(name, value))
      .join('') +
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\n` +
    'Content-Type: application/octet-stream\r\n\r\n';
  return {
    body: Buffer.concat([Buffer.from(head), file.data, Buffer.from(`\r\n--${boundary}--\r\n`)]),
    contentType: `multipart/form-data; boundary=${boundary}`,
  };
}

/** POST /api/v1/convert asking the server to answer once the job has finished (`Prefer: wait=N`). */
async function submitWaiting(
  url: string,
  key: string,
  file: { name: string; data: Buffer },
  fields: Record<string, string>,
  waitS: number,
): Promise<{ status: number; body: JobAnswer }> {
  const form = formBody(fields, file);
  const res = await request(`${url}/api/v1/convert`, {
    method: 'POST',
    body: form.body,
    headers: { ...authHeaders(key), prefer: `wait=${waitS}`, 'content-type': form.contentType },
  });
  return { status: res.status, body: JSON.parse(res.body.toString('utf8')) as JobAnswer };
}

/**
 * One conversion through the API; throws on any failure so a row never counts a broken run as fast.
 * With `preferWaitS`, the submit asks the server to answer when the job has finished (`Prefer: wait`, the
 * synchronous client's way) and polls only if it has not; otherwise it polls every POLL_MS.
 */
export async function convertTimed(
  url: string,
  key: string,
  file: { name: string; data: Buffer },
  fields: Record<string, string>,
  timeoutMs = 120_000,
  { preferWaitS }: { preferWaitS?: number } = {},
): Promise<ConvertTiming> {
  const started = performance.now();
  const submitted =
    preferWaitS === undefined
      ? await submitConvert(url, key, file, fields)
      : await submitWaiting(url, key, file, fields, preferWaitS);
  if (submitted.status !== 200)
    throw new Error(`convert answered ${submitted.status}: ${JSON.stringify(submitted.body)}`);
  const acceptMs = performance.now() - started;
  const jobUrl = `${url}/api/v1/jobs/${submitted.body.jobId}`;
  // Without Prefer: wait the accept answer is never final: the first poll goes at once.
  let answer: JobAnswer | undefined = preferWaitS === undefined ? undefined : submitted.body;
  for (;;) {
    const res = answer ? undefined : await fetch(jobUrl, { headers: authHeaders(key) });
    const body = answer ?? ((await res!.json()) as JobAnswer);
    answer = undefined;
    if (res && res.status !== 200) throw new Error(`poll answered ${res.status}: ${JSON.stringify(body)}`);
    if (body.status === 'failed') throw new Error(`job failed: ${body.error}`);
    if (body.status === 'done') {
      const got = await request(body.downloadUrl!);
      if (got.status !== 200) throw new Error(`download answered ${got.status}`);
      return { totalMs: performance.now() - started, acceptMs, jobId: submitted.body.jobId };
    }
    if (performance.now() - started > timeoutMs) throw new Error(`job still ${body.status} after ${timeoutMs} ms`);
    if (!res && preferWaitS !== undefined) continue; // the accept answer was not final: poll at once
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
