/**
 * Cancelling over HTTP: DELETE /api/v1/jobs/{id} on a running video conversion
 * stops its ffmpeg in the sandbox, the job ends `failed` "Cancelled" and its credits come back;
 * a waiting job is cancelled before it runs; the call is idempotent; a finished job answers 409
 * and another holder's job 404. DELETE /api/batch/{id} cancels a batch's unfinished jobs.
 */
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { mkdtemp, rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runProcess } from '../core/engines/process.js';
import { processesMentioning } from '../core/engines/testing/processes.js';
import { imagePlugins } from '../plugins/image/index.js';
import { mediaPlugins } from '../plugins/media/index.js';
import { authHeaders, getJson, startServer, submitConvert, waitForJob, type TestServer } from './helpers.js';
import sharp from 'sharp';
import { createTransmuteClient } from '../apps/server/trpc/client.js';

async function cancel(url: string, key: string) {
  const res = await fetch(url, { method: 'DELETE', headers: authHeaders(key) });
  return { status: res.status, body: (await res.json()) as any };
}

async function waitUntil<T>(read: () => Promise<T>, ok: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (ok(value) || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('cancel', () => {
  let server: TestServer;
  let dir: string;
  let video: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'cancel-test-'));
    video = path.join(dir, 'long.mp4');
    // Two minutes of 640x360: seconds of x264 here, far longer as VP9.
    await runProcess(
      'ffmpeg',
      [
        '-v',
        'error',
        '-f',
        'lavfi',
        '-i',
        'testsrc=size=640x360:rate=25',
        '-t',
        '120',
        '-c:v',
        'libx264',
        '-preset',
        'ultrafast',
        video,
      ],
      { timeoutMs: 60_000 },
    );
    server = await startServer({ plugins: [...mediaPlugins, ...imagePlugins], env: { WORKERS: '1' } });
  }, 90_000);
  afterAll(async () => {
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('kills a running video conversion with its ffmpeg, refunds it, and cancels a waiting one before it ' +
    'runs', async () => {
    const key = await server.createKey('pro');
    const running = await submitConvert(server.url, key, video, { to: 'webm' });
    const waiting = await submitConvert(server.url, key, video, { to: 'webm' });
    expect([running.status, waiting.status]).toEqual([200, 200]);
    const charged = (await getJson(`${server.url}/api/v1/credits`, key)).body.creditsUsed;
    expect(charged).toBe(running.body.creditCost + waiting.body.creditCost);

    const workDir = path.join(server.dataDir, 'work', running.body.jobId);
    // A loaded machine takes a while to start the sandbox, probe the input and start ffmpeg.
    const engines = await waitUntil(
      () => processesMentioning(workDir),
      (found) => found.some((p) => p.includes('ffmpeg')),
      60_000,
    );
    expect(
      engines.some((p) => p.includes('ffmpeg')),
      'ffmpeg runs the job',
    ).toBe(true);
    expect((await getJson(`${server.url}${running.body.statusUrl}`, key)).body.status).toBe('active');
    expect((await getJson(`${server.url}${waiting.body.statusUrl}`, key)).body.status).toBe('waiting');

    // Another holder cannot see it, let alone cancel it.
    const stranger = await server.createKey('pro');
    expect((await cancel(`${server.url}/api/v1/jobs/${running.body.jobId}`, stranger)).status).toBe(404);

    // The waiting one first: once the running one stops, the worker would take it.
    expect((await cancel(`${server.url}/api/v1/jobs/${waiting.body.jobId}`, key)).body).toEqual({
      status: 'failed',
      error: 'Cancelled',
    });
    const cancelled = await cancel(`${server.url}/api/v1/jobs/${running.body.jobId}`, key);
    expect(cancelled).toEqual({ status: 200, body: { status: 'failed', error: 'Cancelled' } });
    expect(
      await waitUntil(
        () => processesMentioning(workDir),
        (found) => found.length === 0,
        30_000,
      ),
    ).toEqual([]);
    expect(await cancel(`${server.url}/api/v1/jobs/${running.body.jobId}`, key)).toEqual({
      status: 200,
      body: { status: 'failed', error: 'Cancelled' },
    });

    expect((await getJson(`${server.url}/api/v1/credits`, key)).body.creditsUsed).toBe(0);
    // The waiting one never starts; both stay failed "Cancelled".
    await new Promise((r) => setTimeout(r, 1500));
    for (const id of [running.body.jobId, waiting.body.jobId]) {
      expect((await getJson(`${server.url}/api/v1/jobs/${id}`, key)).body).toEqual({
        status: 'failed',
        error: 'Cancelled',
      });
    }
    expect(await processesMentioning(path.join(server.dataDir, 'work', waiting.body.jobId))).toEqual([]);
  }, 120_000);

  it('answers 409 for a finished job and 404 for an unknown one', async () => {
    const key = await server.createKey('pro');
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#000' } })
      .png()
      .toBuffer();
    const submitted = await submitConvert(server.url, key, { name: 'a.png', data: png }, { to: 'webp' });
    expect((await waitForJob(server.url, key, submitted.body.jobId)).status).toBe('done');
    const finished = await cancel(`${server.url}/api/v1/jobs/${submitted.body.jobId}`, key);
    expect(finished.status).toBe(409);
    expect(finished.body.error).toMatch(/already finished/);
    expect((await cancel(`${server.url}/api/v1/jobs/00000000-0000-4000-8000-000000000000`, key)).status).toBe(404);
    const res = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...authHeaders(key) },
      body: JSON.stringify({
        query: 'mutation($id: ID!) { cancelJob(id: $id) { status error } }',
        variables: { id: submitted.body.jobId },
      }),
    });
    expect(((await res.json()) as any).errors[0].extensions.code).toBe('CONFLICT');
  });

  it('answers the usual accepted job at N seconds under Prefer: wait=N when the job is still running', async () => {
    const key = await server.createKey('pro');
    const form = new FormData();
    form.append('to', 'webm');
    form.append('file', new Blob([new Uint8Array(await readFile(video))]), 'long.mp4');
    const started = Date.now();
    const res = await fetch(`${server.url}/api/v1/convert`, {
      method: 'POST',
      body: form,
      headers: { ...authHeaders(key), prefer: 'wait=1' },
    });
    const body = (await res.json()) as any;
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(res.headers.get('preference-applied')).toBe('wait=1');
    expect(body).toEqual({
      jobId: expect.any(String),
      status: 'queued',
      creditCost: expect.any(Number),
      creditsRemaining: expect.any(Number),
      statusUrl: `/api/v1/jobs/${body.jobId}`,
    });
    expect((await cancel(`${server.url}/api/v1/jobs/${body.jobId}`, key)).status).toBe(200);
  }, 60_000);

  it('cancels over GraphQL and tRPC too', async () => {
    const key = await server.createKey('pro');
    const [viaGraphql, viaTrpc] = await Promise.all([
      submitConvert(server.url, key, video, { to: 'webm' }),
      submitConvert(server.url, key, video, { to: 'webm' }),
    ]);
    const res = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...authHeaders(key) },
      body: JSON.stringify({
        query: 'mutation($id: ID!) { cancelJob(id: $id) { jobId status error } }',
        variables: { id: viaGraphql.body.jobId },
      }),
    });
    expect(((await res.json()) as any).data.cancelJob).toEqual({
      jobId: viaGraphql.body.jobId,
      status: 'failed',
      error: 'Cancelled',
    });
    expect(await createTransmuteClient(server.url, key).jobs.cancel.mutate({ jobId: viaTrpc.body.jobId })).toEqual({
      status: 'failed',
      error: 'Cancelled',
    });
    expect((await getJson(`${server.url}/api/v1/credits`, key)).body.creditsUsed).toBe(0);
  }, 60_000);

  it('cancels the unfinished jobs of a batch', async () => {
    const key = await server.createKey('pro');
    const form = new FormData();
    form.append('to', 'webm');
    const blob = new Blob([new Uint8Array(await readFile(video))]);
    form.append('files', blob, 'one.mp4');
    form.append('files', blob, 'two.mp4');
    const res = await fetch(`${server.url}/api/batch/convert`, {
      method: 'POST',
      body: form,
      headers: authHeaders(key),
    });
    const accepted = (await res.json()) as any;
    expect(res.status).toBe(200);
    const answer = await cancel(`${server.url}/api/batch/${accepted.batchId}`, key);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ total: 2, completed: 2, done: true });
    expect((await getJson(`${server.url}/api/v1/credits`, key)).body.creditsUsed).toBe(0);
    expect((await cancel(`${server.url}/api/batch/${accepted.batchId}`, key)).status).toBe(200);
  }, 60_000);
});
