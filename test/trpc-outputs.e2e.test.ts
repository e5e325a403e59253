/**
 * tRPC outputs are typed and checked by the same zod as REST (schema/wire.ts). Output validation
 * strips keys a schema does not declare, so for the same job, batch, extraction, credits, history,
 * formats and webhook endpoint, the tRPC answer must equal the REST answer field for field. The
 * typed client sees the wire types: `expectTypeOf` and `@ts-expect-error` lines are checked by tsc
 * (`npm run typecheck`).
 */
import { readFile } from 'node:fs/promises';
import type { inferRouterOutputs } from '@trpc/server';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import type {
  AcceptedJob,
  Credits,
  ExtractionPoll,
  Formats,
  History,
  JobStatus,
  SignedUrl,
  WebhookEndpoint,
  batchAcceptedSchema,
  batchStatusSchema,
  fileSearchRowSchema,
  parseCvRowSchema,
  pdfToMarkdownRowSchema,
  transcribeRowSchema,
} from '../schema/index.js';
import { createTransmuteClient, type TransmuteClient } from '../apps/server/trpc/client.js';
import type { AppRouter } from '../apps/server/trpc/router.js';
import { SpeechFixtures } from '../plugins/transcribe/testing/fixtures.js';
import { SLOW_TEXT_PLUGIN, authHeaders, getJson, startServer, type TestServer } from './helpers.js';

type Outputs = inferRouterOutputs<AppRouter>;

// The AppRouter's outputs are the wire types.
expectTypeOf<Outputs['jobs']['get']>().toEqualTypeOf<JobStatus>();
expectTypeOf<Outputs['jobs']['cancel']>().toEqualTypeOf<JobStatus>();
expectTypeOf<Outputs['convert']>().toEqualTypeOf<AcceptedJob>();
expectTypeOf<Outputs['merge']>().toEqualTypeOf<AcceptedJob>();
expectTypeOf<Outputs['pipelines']['create']>().toEqualTypeOf<AcceptedJob>();
expectTypeOf<Outputs['credits']['get']>().toEqualTypeOf<Credits>();
expectTypeOf<Outputs['history']['list']>().toEqualTypeOf<History>();
expectTypeOf<Outputs['formats']['list']>().toEqualTypeOf<Formats>();
expectTypeOf<Outputs['signedUrl']['create']>().toEqualTypeOf<SignedUrl>();
expectTypeOf<Outputs['batch']['convert']>().toEqualTypeOf<z.output<typeof batchAcceptedSchema>>();
expectTypeOf<Outputs['batch']['get']>().toEqualTypeOf<z.output<typeof batchStatusSchema>>();
expectTypeOf<Outputs['batch']['cancel']>().toEqualTypeOf<z.output<typeof batchStatusSchema>>();
expectTypeOf<Outputs['extraction']['pdfToMarkdown']>().toEqualTypeOf<z.output<typeof batchAcceptedSchema>>();
expectTypeOf<Outputs['webhooks']['get']>().toEqualTypeOf<WebhookEndpoint>();
expectTypeOf<Outputs['webhooks']['list']>().toEqualTypeOf<WebhookEndpoint[]>();
// Each spec tool's poll has its own row type.
expectTypeOf<Outputs['extraction']['pdfToMarkdownResults']['rows'][number]>().toEqualTypeOf<
  z.output<typeof pdfToMarkdownRowSchema>
>();
expectTypeOf<Outputs['extraction']['fileSearchResults']['rows'][number]>().toEqualTypeOf<
  z.output<typeof fileSearchRowSchema>
>();
expectTypeOf<Outputs['extraction']['parseCvResults']['rows'][number]>().toEqualTypeOf<
  z.output<typeof parseCvRowSchema>
>();
expectTypeOf<Outputs['extraction']['transcribeResults']['rows'][number]>().toEqualTypeOf<
  z.output<typeof transcribeRowSchema>
>();
expectTypeOf<Outputs['extraction']['get']['done']>().toEqualTypeOf<ExtractionPoll['done']>();

/** How a TypeScript client reads typed rows: no casts, and a field of another tool is an error. */
function markdownOf(
  poll: Outputs['extraction']['pdfToMarkdownResults'],
): Array<{ markdown: string | undefined; words: number | undefined }> {
  // @ts-expect-error `segments` is a transcribe field, not a pdf-to-markdown one
  void poll.rows[0]?.segments;
  return poll.rows.map((row) => ({ markdown: row.markdown, words: row.stats?.words }));
}

const blob = (data: Buffer | string) => new Blob([typeof data === 'string' ? data : new Uint8Array(data)]);

function form(
  fields: Record<string, string>,
  files: Array<[field: string, name: string, data: Buffer | string]>,
): FormData {
  const body = new FormData();
  for (const [name, value] of Object.entries(fields)) body.append(name, value);
  for (const [field, name, data] of files) body.append(field, blob(data), name);
  return body;
}

async function pdfWith(lines: string[]): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([595, 842]);
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const [i, line] of lines.entries())
    page.drawText(line, { font, size: i === 0 ? 20 : 11, x: 72, y: 770 - i * 18 });
  return Buffer.from(await doc.save());
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Each read of a finished job mints a fresh download link: the tokens differ, nothing else may. */
const sameLink = (value: unknown) =>
  JSON.parse(JSON.stringify(value).replace(/\/api\/download\/[A-Za-z0-9_-]{43}/g, '/api/download/TOKEN'));

describe('tRPC outputs are the REST answers', () => {
  let server: TestServer;
  let key: string;
  let trpc: TransmuteClient;
  const rest = async (path: string) => {
    const res = await getJson(`${server.url}${path}`, key);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body;
  };

  beforeAll(async () => {
    server = await startServer({ env: { PLUGINS: SLOW_TEXT_PLUGIN, WEBHOOKS_ALLOW_PRIVATE: '1' } });
    key = await server.createKey('business');
    trpc = createTransmuteClient(server.url, key);
  });
  afterAll(() => server.close());

  it('jobs (done, failed, merged, pipeline with steps and result), signed URLs, cancel, credits, history, formats', {
    timeout: 120_000,
  }, async () => {
    const png = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#2060c0' } })
      .png()
      .toBuffer();
    const converted = await trpc.convert.mutate(
      form({ to: 'webp', options: JSON.stringify({ quality: 60 }) }, [['file', 'blue.png', png]]),
    );
    const broken = await trpc.convert.mutate(form({ to: 'webp' }, [['file', 'broken.png', png.subarray(0, 60)]]));
    const merged = await trpc.merge.mutate(
      form({}, [
        ['files', 'a.pdf', await pdfWith(['One'])],
        ['files', 'b.pdf', await pdfWith(['Two'])],
      ]),
    );
    const pipeline = await trpc.pipelines.create.mutate(
      form(
        {
          pipeline: JSON.stringify({
            steps: [
              { op: 'rotate-pdf', angle: 90 },
              { extract: 'pdf-to-markdown', pageBreaks: 'false' },
            ],
          }),
        },
        [['file', 'memo.pdf', await pdfWith(['Team Memo', 'Closed on Friday.'])]],
      ),
    );
    for (const accepted of [converted, broken, merged, pipeline])
      expect(accepted).toEqual({
        jobId: accepted.jobId,
        status: 'queued',
        creditCost: accepted.creditCost,
        creditsRemaining: accepted.creditsRemaining,
        statusUrl: `/api/v1/jobs/${accepted.jobId}`,
      });

    const finished: JobStatus[] = [];
    for (const { jobId } of [converted, broken, merged, pipeline]) {
      const viaTrpc = await until(
        () => trpc.jobs.get.query({ jobId }),
        (job) => job.status === 'done' || job.status === 'failed',
      );
      expect(sameLink(viaTrpc)).toEqual(sameLink(await rest(`/api/v1/jobs/${jobId}`)));
      finished.push(viaTrpc);
    }
    const [done, failed, mergedDone, pipelineDone] = finished;
    expect(done).toMatchObject({ status: 'done', expiresIn: 900 });
    expect(failed).toMatchObject({ status: 'failed', error: expect.any(String) });
    expect(mergedDone!.status).toBe('done');
    // The pipeline's steps and its extraction result survive the output schema.
    expect(pipelineDone, JSON.stringify(pipelineDone)).toMatchObject({
      status: 'done',
      steps: [
        { index: 0, status: 'done' },
        { index: 1, extract: 'pdf-to-markdown', status: 'done' },
      ],
    });
    expect(pipelineDone!.result).toMatchObject({ markdown: expect.stringContaining('Team Memo') });

    // Signed URLs: same fields (the tokens differ).
    const signed = await trpc.signedUrl.create.mutate({ jobId: converted.jobId, expirySeconds: 600 });
    const signedRest = await fetch(`${server.url}/api/v1/signed-url`, {
      method: 'POST',
      headers: { ...authHeaders(key), 'content-type': 'application/json' },
      body: JSON.stringify({ jobId: converted.jobId, expirySeconds: 600 }),
    });
    const restSigned = await signedRest.json();
    expect(Object.keys(signed).sort()).toEqual(Object.keys(restSigned).sort());
    expect({ ...signed, url: 'URL', expiresAt: 'AT' }).toEqual({ ...restSigned, url: 'URL', expiresAt: 'AT' });

    // Cancel (a slow job, so it is still running); cancelling it again answers the same status on REST.
    const slow = await trpc.convert.mutate(
      form({ to: 'md', options: JSON.stringify({ steps: 100 }) }, [['file', 'notes.txt', 'slow text']]),
    );
    const cancelled = await trpc.jobs.cancel.mutate({ jobId: slow.jobId });
    expect(cancelled).toMatchObject({ status: 'failed', error: expect.any(String) });
    const again = await fetch(`${server.url}/api/v1/jobs/${slow.jobId}`, {
      method: 'DELETE',
      headers: authHeaders(key),
    });
    expect(cancelled).toEqual(await again.json());

    expect(await trpc.credits.get.query()).toEqual(await rest('/api/v1/credits'));
    expect(await trpc.history.list.query({ limit: 5, offset: 1 })).toEqual(
      await rest('/api/v1/history?limit=5&offset=1'),
    );
    expect(await trpc.formats.list.query()).toEqual(await rest('/api/v1/formats'));
  });

  it('batches: accepted, status and cancel', { timeout: 60_000 }, async () => {
    const png = await sharp({ create: { width: 20, height: 20, channels: 3, background: '#30a030' } })
      .png()
      .toBuffer();
    const accepted = await trpc.batch.convert.mutate(
      form({ to: 'webp' }, [
        ['files', 'a.png', png],
        ['files', 'b.png', png],
        ['files', 'c.txt', 'text'],
      ]),
    );
    expect(accepted).toEqual({
      batchId: accepted.batchId,
      total: 2,
      statusUrl: `/api/batch/${accepted.batchId}`,
      errors: [{ filename: 'c.txt', error: expect.any(String) }],
    });
    const status = await until(
      () => trpc.batch.get.query({ batchId: accepted.batchId }),
      (batch) => batch.done,
    );
    expect(status).toEqual(await rest(`/api/batch/${accepted.batchId}`));
    expect(status).toEqual({ total: 2, completed: 2, done: true, downloadUrl: expect.any(String) });
    const cancelled = await trpc.batch.cancel.mutate({ batchId: accepted.batchId });
    const restCancelled = await fetch(`${server.url}/api/batch/${accepted.batchId}`, {
      method: 'DELETE',
      headers: authHeaders(key),
    });
    expect(cancelled).toEqual(await restCancelled.json());
  });

  it('extractions: every typed row field of pdf-to-markdown, file-search and parse-cv, on the typed and ' +
    'the generic poll', {
    timeout: 120_000,
  }, async () => {
    const markdown = await trpc.extraction.pdfToMarkdown.mutate(
      form({ pageBreaks: 'false' }, [['files', 'report.pdf', await pdfWith(['Quarterly Report', 'Revenue grew.'])]]),
    );
    const search = await trpc.extraction.fileSearch.mutate(
      form({ query: 'hello' }, [
        ['files', 'a.txt', 'hello world\nhello again'],
        ['files', 'b.txt', 'nothing here'],
      ]),
    );
    const cv = await trpc.extraction.parseCv.mutate(
      form({}, [
        [
          'files',
          'jane.pdf',
          await pdfWith([
            'Jane Doe',
            'jane.doe@example.com | +44 20 7946 0958 | London, United Kingdom',
            'linkedin.com/in/janedoe',
            '',
            'Experience',
            'Senior Engineer at Acme Ltd',
            '2015 - 2020',
            '',
            'Skills',
            'TypeScript, Docker, PostgreSQL',
          ]),
        ],
      ]),
    );
    expect(markdown.statusUrl).toBe(`/api/pdf-to-markdown/${markdown.batchId}`);

    const markdownPoll = await until(
      () => trpc.extraction.pdfToMarkdownResults.query({ batchId: markdown.batchId }),
      (poll) => poll.done,
    );
    const searchPoll = await until(
      () => trpc.extraction.fileSearchResults.query({ batchId: search.batchId }),
      (poll) => poll.done,
    );
    const cvPoll = await until(
      () => trpc.extraction.parseCvResults.query({ batchId: cv.batchId }),
      (poll) => poll.done,
    );
    expect(markdownPoll).toEqual(await rest(markdown.statusUrl));
    expect(searchPoll).toEqual(await rest(search.statusUrl));
    expect(cvPoll).toEqual(await rest(cv.statusUrl));
    expect(await trpc.extraction.get.query({ tool: 'parse-cv', batchId: cv.batchId })).toEqual(cvPoll);
    expect(await trpc.extraction.get.query({ tool: 'file-search', batchId: search.batchId })).toEqual(searchPoll);

    // Typed access, no casts: the rows carry their tool's fields.
    expect(markdownOf(markdownPoll)).toEqual([
      { markdown: expect.stringContaining('Quarterly Report'), words: expect.any(Number) },
    ]);
    expect(searchPoll.totalHits).toBe(2);
    expect(searchPoll.rows.map((row) => [row.count, row.matches?.length, row.error])).toEqual([
      [2, 2, null],
      [0, 0, null],
    ]);
    const [jane] = cvPoll.rows;
    expect([jane?.name, jane?.email, jane?.skills?.includes('TypeScript')]).toEqual([
      'Jane Doe',
      'jane.doe@example.com',
      true,
    ]);
    expect(jane?.confidence?.email).toBeGreaterThan(0.5);
  });

  it('transcribe: segments and language on the typed poll, as REST', { timeout: 240_000 }, async () => {
    const fixtures = new SpeechFixtures();
    try {
      await fixtures.make();
      const accepted = await trpc.extraction.transcribe.mutate(
        form({ lang: 'en' }, [['files', 'speech.mp3', await readFile(fixtures.file('two-sentences-mp3'))]]),
      );
      const poll = await until(
        () => trpc.extraction.transcribeResults.query({ batchId: accepted.batchId }),
        (p) => p.done,
      );
      expect(poll).toEqual(await rest(accepted.statusUrl));
      const [row] = poll.rows;
      expect(row, JSON.stringify(row)).toMatchObject({ status: 'completed', language: 'en' });
      expect(row?.segments?.length).toBeGreaterThan(0);
      expect(row?.segments?.every((segment) => segment.end >= segment.start && typeof segment.text === 'string')).toBe(
        true,
      );
    } finally {
      await fixtures.cleanup();
    }
  });

  it('webhook endpoints: get, list, update, attempts and delete', async () => {
    const created = await trpc.webhooks.create.mutate({
      url: 'http://127.0.0.1:9/hook',
      events: ['job.done'],
      description: 'parity',
    });
    expect(created.secret).toMatch(/^whsec_/);
    expect(await trpc.webhooks.get.query({ id: created.endpoint.id })).toEqual(
      await rest(`/api/v1/webhooks/${created.endpoint.id}`),
    );
    expect({ endpoints: await trpc.webhooks.list.query() }).toEqual(await rest('/api/v1/webhooks'));
    expect({ attempts: await trpc.webhooks.attempts.query({ id: created.endpoint.id }) }).toEqual(
      await rest(`/api/v1/webhooks/${created.endpoint.id}/attempts`),
    );
    const updated = await trpc.webhooks.update.mutate({
      id: created.endpoint.id,
      patch: { description: 'renamed', events: null },
    });
    expect(updated).toMatchObject({ id: created.endpoint.id, description: 'renamed' });
    expect(updated).toEqual(await rest(`/api/v1/webhooks/${created.endpoint.id}`));
    expect(await trpc.webhooks.delete.mutate({ id: created.endpoint.id })).toEqual({ deleted: true });
    await expect(trpc.webhooks.get.query({ id: created.endpoint.id })).rejects.toMatchObject({
      data: { code: 'NOT_FOUND' },
    });
  });
});
