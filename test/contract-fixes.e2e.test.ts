/**
 * Contract details over HTTP: `WWW-Authenticate: Bearer` on REST 401s, 405 with `Allow`
 * for a wrong method on a known path, merged PDFs named merged.pdf, the failed-job wording of a
 * signed URL, and Enterprise credits without an overage rate. (Webhook events naming their job or
 * batch: test/webhooks.e2e.test.ts.)
 */
import path from 'node:path';
import { PDFDocument } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ROOT,
  authHeaders,
  download,
  getJson,
  startServer,
  submitConvert,
  waitForJob,
  type TestServer,
} from './helpers.js';

let server: TestServer;

beforeAll(async () => {
  server = await startServer({ env: { PLUGINS: path.join(ROOT, 'test/fixtures/plugins/hostile.ts') } });
}, 60_000);
afterAll(() => server?.close());

async function pdfOfPages(pages: number): Promise<Buffer> {
  const document = await PDFDocument.create();
  for (let i = 0; i < pages; i++) document.addPage([200, 200]);
  return Buffer.from(await document.save());
}

describe('401 challenge', () => {
  it('a REST 401 carries WWW-Authenticate: Bearer, with invalid_token when a key was sent', async () => {
    const missing = await fetch(`${server.url}/api/v1/credits`);
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe('Bearer realm="transmute"');
    expect(((await missing.json()) as { error: string }).error).toMatch(/Missing API key/);

    const invalid = await fetch(`${server.url}/api/v1/jobs/x`, { headers: authHeaders('ck_live_not_a_real_key') });
    expect(invalid.status).toBe(401);
    expect(invalid.headers.get('www-authenticate')).toBe('Bearer realm="transmute", error="invalid_token"');
  });

  it('other statuses carry no challenge', async () => {
    const key = await server.createKey('pro');
    const res = await fetch(`${server.url}/api/v1/jobs/nope`, { headers: authHeaders(key) });
    expect(res.status).toBe(404);
    expect(res.headers.get('www-authenticate')).toBeNull();
  });
});

describe('405 for a wrong method', () => {
  it.each([
    ['GET', '/api/v1/convert', 'POST'],
    ['PUT', '/api/v1/jobs/job_123', 'DELETE, GET, HEAD'],
    ['POST', '/api/v1/credits', 'GET, HEAD'],
    ['PUT', '/api/pdf/merge', 'POST'],
  ])('%s %s is a 405 with Allow: %s', async (method, url, allow) => {
    const res = await fetch(`${server.url}${url}`, { method });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe(allow);
    expect(((await res.json()) as { error: string }).error).toBe(
      `Method ${method} is not allowed on ${url}; allowed: ${allow}`,
    );
  });

  it('a path nothing serves stays a 404', async () => {
    const res = await fetch(`${server.url}/api/v1/nothing-here`);
    expect(res.status).toBe(404);
    expect(res.headers.get('allow')).toBeNull();
    expect(((await res.json()) as { error: string }).error).toBe('No route GET /api/v1/nothing-here');
  });
});

describe('merged PDFs', () => {
  it('download as merged.pdf, holding every page in order', async () => {
    const key = await server.createKey('pro');
    const form = new FormData();
    form.append('files', new Blob([new Uint8Array(await pdfOfPages(1))]), 'one.pdf');
    form.append('files', new Blob([new Uint8Array(await pdfOfPages(2))]), 'two.pdf');
    const res = await fetch(`${server.url}/api/pdf/merge`, { method: 'POST', body: form, headers: authHeaders(key) });
    expect(res.status).toBe(200);
    const job = await waitForJob(server.url, key, ((await res.json()) as { jobId: string }).jobId);
    expect(job.status, job.error).toBe('done');
    const merged = await download(job.downloadUrl!);
    expect(merged.status).toBe(200);
    expect(merged.headers.get('content-disposition')).toMatch(/filename="merged\.pdf"/);
    expect((await PDFDocument.load(merged.data)).getPageCount()).toBe(3);
  }, 60_000);
});

describe('signed URL of a failed job', () => {
  it('says the job failed and has no output', async () => {
    const key = await server.createKey('business');
    // The test op spins until its 2 s deadline: the job fails "Timed out after 2 s".
    const submitted = await submitConvert(
      server.url,
      key,
      { name: 'notes.txt', data: 'hello' },
      { to: 'txt', op: 'test-spin' },
    );
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(200);
    const job = await waitForJob(server.url, key, submitted.body.jobId, 30_000);
    expect(job.status).toBe('failed');
    const res = await fetch(`${server.url}/api/v1/signed-url`, {
      method: 'POST',
      headers: { ...authHeaders(key), 'content-type': 'application/json' },
      body: JSON.stringify({ jobId: submitted.body.jobId }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toBe(
      'The job failed and has no output: there is nothing to sign',
    );
  }, 60_000);
});

describe('Enterprise credits', () => {
  it('have no overage rate and overage off, as the plan has no pay-as-you-go', async () => {
    const enterprise = await server.createKey('enterprise', { overageEnabled: true });
    const { status, body } = await getJson(`${server.url}/api/v1/credits`, enterprise);
    expect(status).toBe(200);
    expect(body.plan).toBe('Enterprise');
    expect(body.overageEnabled).toBe(false);
    expect(body).not.toHaveProperty('overageRatePer1000');

    const graphql = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { ...authHeaders(enterprise), 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ credits { overageEnabled overageRatePer1000 overageAvailable } }' }),
    });
    expect(((await graphql.json()) as any).data.credits).toEqual({
      overageEnabled: false,
      overageRatePer1000: null,
      overageAvailable: false,
    });

    const pro = await getJson(`${server.url}/api/v1/credits`, await server.createKey('pro', { overageEnabled: true }));
    expect(pro.body).toMatchObject({ overageEnabled: true, overageRatePer1000: 5 });
  });
});
