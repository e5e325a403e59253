/**
 * Pipelines over HTTP: a DOCX fetched from a URL on a local test server goes
 * DOCX -> PDF -> compress-pdf -> pdf-to-markdown in one job, whose `result` holds the Markdown and
 * whose steps report their states; a multipart pipeline ends with a download; a chain that cannot
 * run is a 400 naming the step; credits: every step charged at acceptance, the steps that did not
 * finish refunded when one fails.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTransmuteClient } from '../apps/server/trpc/client.js';
import { runProcess } from '../core/engines/process.js';
import { imagePlugins } from '../plugins/image/index.js';
import { pdfToMarkdownPlugin } from '../plugins/markdown/pdf-to-markdown/index.js';
import { officePlugins } from '../plugins/office/index.js';
import { pdfPlugins } from '../plugins/pdf/index.js';
import { authHeaders, download, getJson, startServer, waitForJob, type TestServer } from './helpers.js';

async function postJson(url: string, key: string, body: unknown) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...authHeaders(key) },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

describe('pipelines', () => {
  let server: TestServer;
  let origin: http.Server;
  let base: string;
  let dir: string;
  let docx: Buffer;
  let png: Buffer;
  /** Webhook events the origin received, by path. */
  const hooks: Array<{ path: string; body: any }> = [];

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'pipelines-e2e-'));
    await writeFile(
      path.join(dir, 'report.md'),
      '# Quarterly report\n\nRevenue grew by **twelve percent** in the third quarter.\n\n## Outlook\n\nThe pipeline ' +
        'keeps every word.\n',
    );
    await runProcess('pandoc', [path.join(dir, 'report.md'), '-o', path.join(dir, 'report.docx')], {
      timeoutMs: 20_000,
    });
    docx = await readFile(path.join(dir, 'report.docx'));
    png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#2050c0' } })
      .png()
      .toBuffer();
    origin = http.createServer((req, res) => {
      if (req.url?.startsWith('/hooks/')) {
        const chunks: Buffer[] = [];
        req.on('data', (chunk: Buffer) => chunks.push(chunk));
        return req.on('end', () => {
          hooks.push({ path: req.url!, body: JSON.parse(Buffer.concat(chunks).toString()) });
          res.writeHead(204).end();
        });
      }
      if (req.url === '/files/report.docx') return res.writeHead(200, { 'content-length': docx.length }).end(docx);
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
    server = await startServer({
      plugins: [...officePlugins, ...pdfPlugins, pdfToMarkdownPlugin, ...imagePlugins],
      env: { IMPORT_ALLOW_PRIVATE: '1', WEBHOOKS_ALLOW_PRIVATE: '1' },
    });
  }, 90_000);
  afterAll(async () => {
    await server?.close();
    await new Promise((resolve) => origin.close(resolve));
    await rm(dir, { recursive: true, force: true });
  });

  it('runs DOCX -> PDF -> compress-pdf -> pdf-to-markdown from a URL in one job; ' +
    'result holds the Markdown', async () => {
    const key = await server.createKey('pro');
    const submitted = await postJson(`${server.url}/api/v1/pipelines`, key, {
      input: { url: `${base}/files/report.docx` },
      steps: [{ to: 'pdf' }, { op: 'compress-pdf', quality: 60 }, { extract: 'pdf-to-markdown', pageBreaks: 'false' }],
    });
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(200);
    expect(submitted.body).toMatchObject({ status: 'queued', statusUrl: `/api/v1/jobs/${submitted.body.jobId}` });
    // Each step charged on the first input's size: DOCX (10) + PDF (10) + PDF (10).
    expect(submitted.body.creditCost).toBe(30);
    expect((await getJson(`${server.url}/api/v1/credits`, key)).body.creditsUsed).toBe(30);

    const job = (await waitForJob(server.url, key, submitted.body.jobId, 180_000)) as any;
    expect(job.status, job.error).toBe('done');
    expect(job.steps).toEqual([
      { index: 0, to: 'pdf', status: 'done', progress: 100 },
      { index: 1, op: 'compress-pdf', status: 'done', progress: 100 },
      { index: 2, extract: 'pdf-to-markdown', status: 'done', progress: 100 },
    ]);
    const markdown = String(job.result.markdown ?? JSON.stringify(job.result));
    expect(markdown).toMatch(/Quarterly report/);
    expect(markdown).toMatch(/twelve percent/);
    expect(markdown).toMatch(/Outlook/);
    expect(job.downloadUrl).toBeUndefined();
    // The intermediates and the import are gone with the job's work dir and uploads.
    expect(await readdirOrEmpty(path.join(server.dataDir, 'work', submitted.body.jobId))).toEqual([]);
    expect((await getJson(`${server.url}/api/v1/history`, key)).body.history[0].conv).toBe('pipeline (DOCX)');
  }, 240_000);

  it('takes a multipart upload and ends with a download of the last file', async () => {
    const key = await server.createKey('pro');
    const form = new FormData();
    form.append(
      'pipeline',
      JSON.stringify({ steps: [{ to: 'webp', quality: 80 }, { op: 'resize', resize: { width: 32 } }, { to: 'png' }] }),
    );
    form.append('file', new Blob([new Uint8Array(png)]), 'blue.png');
    const res = await fetch(`${server.url}/api/v1/pipelines`, {
      method: 'POST',
      body: form,
      headers: authHeaders(key),
    });
    const accepted = (await res.json()) as any;
    expect(res.status, JSON.stringify(accepted)).toBe(200);
    expect(accepted.creditCost).toBe(3);
    const job = (await waitForJob(server.url, key, accepted.jobId)) as any;
    expect(job.status, job.error).toBe('done');
    expect(job.steps.map((s: any) => s.status)).toEqual(['done', 'done', 'done']);
    const got = await download(job.downloadUrl);
    expect(got.headers.get('content-disposition')).toContain('blue.png');
    const meta = await sharp(got.data).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['png', 32, 24]);
  });

  it("takes a typed pipeline over GraphQL: an uploaded file, each step with its plugin's typed options", async () => {
    const key = await server.createKey('pro');
    const form = new FormData();
    form.append(
      'operations',
      JSON.stringify({
        query:
          'mutation($file: Upload, $p: PipelineInput!) ' +
          '{ createPipeline(file: $file, pipeline: $p) { jobId creditCost } }',
        variables: {
          file: null,
          p: {
            steps: [
              { to: 'webp', options: { imageConvert: { quality: 80 } } },
              { op: 'resize', options: { imageResize: { resize: { width: 32 } } } },
              { to: 'png' },
            ],
          },
        },
      }),
    );
    form.append('map', JSON.stringify({ 0: ['variables.file'] }));
    form.append('0', new Blob([new Uint8Array(png)]), 'blue.png');
    const res = await fetch(`${server.url}/graphql`, { method: 'POST', body: form, headers: authHeaders(key) });
    const answer = (await res.json()) as any;
    expect(answer.errors, JSON.stringify(answer)).toBeUndefined();
    expect(answer.data.createPipeline.creditCost).toBe(3);
    const job = (await waitForJob(server.url, key, answer.data.createPipeline.jobId)) as any;
    expect(job.status, job.error).toBe('done');
    const meta = await sharp((await download(job.downloadUrl)).data).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['png', 32, 24]);

    // A step's typed options are checked by its plugin, as on REST: the refusal names the step.
    const refused = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...authHeaders(key) },
      body: JSON.stringify({
        query: 'mutation($p: PipelineInput!) { createPipeline(pipeline: $p) { jobId } }',
        variables: {
          p: {
            input: { url: `${base}/files/report.docx` },
            steps: [{ to: 'pdf', extractOptions: { pdfToMarkdown: { pageBreaks: true } } }],
          },
        },
      }),
    });
    const refusal = (await refused.json()) as any;
    expect(refusal.errors?.[0]?.extensions?.code, JSON.stringify(refusal)).toBe('BAD_USER_INPUT');
  });

  it('runs the same pipeline over GraphQL (createPipeline) and tRPC (pipelines.create)', async () => {
    const key = await server.createKey('pro');
    const pipeline = {
      input: { url: `${base}/files/report.docx` },
      steps: [{ to: 'pdf' }, { extract: 'pdf-to-markdown' }],
    };
    const res = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...authHeaders(key) },
      body: JSON.stringify({
        query: 'mutation($p: PipelineInput!) { createPipeline(pipeline: $p) { jobId status creditCost } }',
        variables: { p: pipeline },
      }),
    });
    const created = ((await res.json()) as any).data.createPipeline;
    expect(created).toMatchObject({ status: 'queued', creditCost: 20 });
    const viaTrpc = await createTransmuteClient(server.url, key).pipelines.create.mutate(pipeline);
    for (const jobId of [created.jobId, viaTrpc.jobId]) {
      const job = (await waitForJob(server.url, key, jobId, 120_000)) as any;
      expect(job.status, job.error).toBe('done');
      expect(String(job.result.markdown)).toMatch(/Quarterly report/);
    }
    const polled = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...authHeaders(key) },
      body: JSON.stringify({
        query: 'query($id: ID!) { job(id: $id) { status steps result } }',
        variables: { id: created.jobId },
      }),
    });
    const job = ((await polled.json()) as any).data.job;
    expect(job.steps.map((s: any) => s.status)).toEqual(['done', 'done']);
    expect(String(job.result.markdown)).toMatch(/twelve percent/);
  }, 180_000);

  it('takes webhookUrl like convert, on REST, GraphQL and tRPC: job.done and job.failed with the jobId', async () => {
    const key = await server.createKey('pro');
    const steps = [{ to: 'webp' }];
    const form = (webhookUrl: string) => {
      const body = new FormData();
      body.append('file', new Blob([new Uint8Array(png)]), 'photo.png');
      body.append('pipeline', JSON.stringify({ steps, webhookUrl }));
      return body;
    };
    // As on convert: a per-request webhookUrl needs the account's default secret first.
    const refused = await fetch(`${server.url}/api/v1/pipelines`, {
      method: 'POST',
      headers: authHeaders(key),
      body: form(`${base}/hooks/rest`),
    });
    expect([refused.status, ((await refused.json()) as any).error]).toEqual([
      400,
      expect.stringMatching(/default webhook secret/),
    ]);
    const secret = await fetch(`${server.url}/api/v1/webhooks/default-secret`, {
      method: 'POST',
      headers: authHeaders(key),
    });
    expect(secret.status).toBe(200);
    const rest = await fetch(`${server.url}/api/v1/pipelines`, {
      method: 'POST',
      headers: authHeaders(key),
      body: form(`${base}/hooks/rest`),
    });
    const viaRest = (await rest.json()) as any;
    expect(rest.status, JSON.stringify(viaRest)).toBe(200);
    const gql = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...authHeaders(key) },
      body: JSON.stringify({
        query: 'mutation($p: PipelineInput!) { createPipeline(pipeline: $p) { jobId } }',
        variables: {
          p: { input: { url: `${base}/files/missing.docx` }, steps: [{ to: 'pdf' }], webhookUrl: `${base}/hooks/gql` },
        },
      }),
    });
    const viaGraphql = ((await gql.json()) as any).data.createPipeline;
    const viaTrpc = await createTransmuteClient(server.url, key).pipelines.create.mutate({
      input: { url: `${base}/files/report.docx` },
      steps: [{ to: 'pdf' }],
      webhookUrl: `${base}/hooks/trpc`,
    });
    const expected = [
      ['/hooks/rest', viaRest.jobId, 'job.done'],
      ['/hooks/gql', viaGraphql.jobId, 'job.failed'],
      ['/hooks/trpc', viaTrpc.jobId, 'job.done'],
    ];
    for (let i = 0; i < 600 && hooks.length < expected.length; i++) await new Promise((r) => setTimeout(r, 200));
    const got = expected.map(([path]) => hooks.find((hook) => hook.path === path));
    expect(got.map((hook) => [hook?.path, hook?.body.data?.jobId, hook?.body.type])).toEqual(expected);
    // The URL import that answered 404 failed the job after it was accepted, and said why.
    expect(got[1]!.body.data.error).toMatch(/answered HTTP 404/);
  }, 180_000);

  it('takes a password step as the last step only: PNG -> PDF -> protect-pdf, the password never stored', async () => {
    const key = await server.createKey('pro');
    const password = 'pipeline-secret-7f3a';
    const form = new FormData();
    form.append('pipeline', JSON.stringify({ steps: [{ to: 'pdf' }, { op: 'protect-pdf', password }] }));
    form.append('file', new Blob([new Uint8Array(png)]), 'blue.png');
    const res = await fetch(`${server.url}/api/v1/pipelines`, {
      method: 'POST',
      body: form,
      headers: authHeaders(key),
    });
    const accepted = (await res.json()) as any;
    expect(res.status, JSON.stringify(accepted)).toBe(200);
    const job = (await waitForJob(server.url, key, accepted.jobId, 120_000)) as any;
    expect(job.status, job.error).toBe('done');
    const out = path.join(dir, 'protected.pdf');
    await writeFile(out, (await download(job.downloadUrl)).data);
    // qpdf answers 0 to --requires-password only for a file that needs one; the password opens it.
    await runProcess('qpdf', ['--requires-password', out], { timeoutMs: 20_000 });
    await runProcess('qpdf', [`--password=${password}`, '--decrypt', out, path.join(dir, 'opened.pdf')], {
      timeoutMs: 20_000,
    });
    for (const file of await readdir(server.dataDir, { recursive: true, withFileTypes: true })) {
      if (!file.isFile()) continue;
      const data = await readFile(path.join(file.parentPath, file.name)).catch(() => Buffer.alloc(0));
      expect(data.includes(password), file.name).toBe(false);
    }
  }, 180_000);

  it('answers with the final status under Prefer: wait=N when the job finishes in time ' +
    '(convert and pipelines)', async () => {
    const key = await server.createKey('pro');
    const form = new FormData();
    form.append('to', 'webp');
    form.append('file', new Blob([new Uint8Array(png)]), 'blue.png');
    const res = await fetch(`${server.url}/api/v1/convert`, {
      method: 'POST',
      body: form,
      headers: { ...authHeaders(key), prefer: 'wait=30' },
    });
    const body = (await res.json()) as any;
    expect(res.headers.get('preference-applied')).toBe('wait=30');
    expect(body).toMatchObject({
      jobId: expect.any(String),
      status: 'done',
      creditCost: 1,
      statusUrl: `/api/v1/jobs/${body.jobId}`,
      downloadUrl: expect.any(String),
    });
    expect((await sharp((await download(body.downloadUrl)).data).metadata()).format).toBe('webp');

    const pipeline = await fetch(`${server.url}/api/v1/pipelines`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', prefer: 'respond-async, wait=600', ...authHeaders(key) },
      body: JSON.stringify({
        input: { url: `${base}/files/report.docx` },
        steps: [{ to: 'pdf' }, { extract: 'pdf-to-markdown' }],
      }),
    });
    const answer = (await pipeline.json()) as any;
    // N is at most 60.
    expect(pipeline.headers.get('preference-applied')).toBe('wait=60');
    expect(answer.status, JSON.stringify(answer)).toBe('done');
    expect(String(answer.result.markdown)).toMatch(/twelve percent/);
  }, 120_000);

  it('refuses at submit a chain that cannot run, naming the step, and charges nothing', async () => {
    const key = await server.createKey('pro');
    const url = `${base}/files/report.docx`;
    const cases: Array<[unknown[], RegExp]> = [
      [[{ op: 'compress-pdf' }], /^steps\[0\]: compress-pdf takes PDF, the input gives DOCX$/],
      [
        [{ to: 'pdf' }, { to: 'docx' }, { op: 'compress-pdf' }],
        /^steps\[1\]: Unsupported conversion: pdf -> docx|^steps\[2\]: compress-pdf takes PDF, step 1 gives DOCX$/,
      ],
      [[{ to: 'txt' }, { op: 'compress-pdf' }], /^steps\[1\]: compress-pdf takes PDF, step 0 gives TXT$/],
      [[{ to: 'pdf' }, { op: 'rotate-pdf', angle: 45 }], /^steps\[1\]: Invalid angle/],
      [
        [{ to: 'pdf' }, { op: 'rotate-pdf', angle: 90, quality: 60 }],
        /^steps\[1\]: Field 'quality' does not apply to op 'rotate-pdf'$/,
      ],
      [
        [{ to: 'pdf' }, { op: 'compress-pdf', quality: 5 }],
        /^steps\[1\]: Invalid quality: must be an integer from 10 to 95$/,
      ],
      [[{ to: 'pdf' }, { op: 'no-such-op' }], /^steps\[1\]: Unknown op 'no-such-op'$/],
      [
        [{ to: 'pdf' }, { extract: 'pdf-to-markdown' }, { to: 'pdf' }],
        /^steps\[1\]: an extraction step \(pdf-to-markdown\) must be the last step/,
      ],
      [
        [{ to: 'pdf' }, { op: 'protect-pdf', password: 'x' }, { op: 'compress-pdf' }],
        /^steps\[1\]: .* takes a password: it can only be the last step of a pipeline$/,
      ],
      [[{ to: 'pdf', extract: 'pdf-to-markdown' }], /^Invalid pipeline: .*'to' or 'op'/],
      [Array.from({ length: 11 }, () => ({ to: 'pdf' })), /^Invalid pipeline: .*at most 10 steps/],
    ];
    for (const [steps, message] of cases) {
      const answer = await postJson(`${server.url}/api/v1/pipelines`, key, { input: { url }, steps });
      expect([answer.status, answer.body.error], JSON.stringify(steps)).toEqual([400, expect.stringMatching(message)]);
    }
    const noInput = await postJson(`${server.url}/api/v1/pipelines`, key, { steps: [{ to: 'pdf' }] });
    expect([noInput.status, noInput.body.error]).toEqual([400, expect.stringMatching(/Missing input/)]);
    const refused = await postJson(`${server.url}/api/v1/pipelines`, key, {
      input: { url: 'http://169.254.169.254/a.docx' },
      steps: [{ to: 'pdf' }],
    });
    expect([refused.status, refused.body.error]).toEqual([400, expect.stringMatching(/cloud metadata address/)]);
    const free = await postJson(`${server.url}/api/v1/pipelines`, await server.createKey('free'), {
      input: { url },
      steps: [{ to: 'pdf' }, { op: 'compress-pdf' }],
    });
    expect([free.status, free.body.error]).toEqual([
      403,
      expect.stringMatching(/^steps\[1\]: Tool operations require/),
    ]);
    expect((await getJson(`${server.url}/api/v1/credits`, key)).body.creditsUsed).toBe(0);
  });

  it('refunds the steps that did not finish when one fails', async () => {
    const key = await server.createKey('pro');
    // Pages past the end of the document are only found at run time.
    const submitted = await postJson(`${server.url}/api/v1/pipelines`, key, {
      input: { url: `${base}/files/report.docx` },
      steps: [{ to: 'pdf' }, { op: 'extract-pages', pages: '40-42' }, { op: 'compress-pdf' }],
    });
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(200);
    expect(submitted.body.creditCost).toBe(30);
    const job = (await waitForJob(server.url, key, submitted.body.jobId, 120_000)) as any;
    expect(job.status).toBe('failed');
    expect(job.error).toMatch(/^steps\[1\] \(op extract-pages\): /);
    expect(job.steps.map((s: any) => s.status)).toEqual(['done', 'failed', 'waiting']);
    // Step 0 ran and keeps its 10 credits; steps 1 and 2 come back.
    expect((await getJson(`${server.url}/api/v1/credits`, key)).body.creditsUsed).toBe(10);
  }, 180_000);
});

async function readdirOrEmpty(dir: string): Promise<string[]> {
  return readdir(dir).catch(() => []);
}
