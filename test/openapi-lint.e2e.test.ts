/**
 * The served OpenAPI document passes a third-party linter: `@redocly/cli lint` with its
 * recommended rules, offline, 0 errors. And what the linter does not check:
 * a stable camelCase operationId on every operation, tags with descriptions, standard keywords.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, startServer, type TestServer } from './helpers.js';

const run = promisify(execFile);

let server: TestServer;
let document: any;
let dir: string;

beforeAll(async () => {
  server = await startServer();
  dir = await mkdtemp(path.join(os.tmpdir(), 'openapi-lint-'));
  const res = await fetch(`${server.url}/api/openapi.json`);
  expect(res.status).toBe(200);
  document = await res.json();
}, 60_000);
afterAll(async () => {
  await server?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const operations = () =>
  Object.entries(document.paths as Record<string, Record<string, any>>).flatMap(([url, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({ url, method, operation })),
  );

describe('OpenAPI document', () => {
  it('passes redocly lint (recommended rules) with 0 errors', async () => {
    const file = path.join(dir, 'openapi.json');
    await writeFile(file, JSON.stringify(document));
    // Offline: no telemetry, no update check; run where no redocly.yaml is found (the built-in recommended set).
    const result = await run(path.join(ROOT, 'node_modules/.bin/redocly'), ['lint', file, '--format=json'], {
      cwd: dir,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      maxBuffer: 32 * 1024 * 1024,
    }).catch((error: { stdout: string; stderr: string }) => error);
    const report = JSON.parse(result.stdout) as {
      totals: { errors: number; warnings: number };
      problems: Array<{ severity: string; message: string; ruleId: string; location: Array<{ pointer: string }> }>;
    };
    const errors = report.problems
      .filter((p) => p.severity === 'error')
      .map((p) => `${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`);
    expect(errors).toEqual([]);
    expect(report.totals.errors).toBe(0);
    // The only warnings left: health and reference routes answer no 4xx.
    const warnings = report.problems.filter((p) => p.severity === 'warn' && p.ruleId !== 'operation-4xx-response');
    expect(warnings.map((p) => `${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`)).toEqual([]);
  }, 120_000);

  it('gives every operation a unique camelCase operationId, a described tag and a 500', () => {
    const ids = operations().map(({ operation }) => operation.operationId);
    expect(ids.every((id) => /^[a-z][A-Za-z0-9]*$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(document.paths['/api/v1/convert'].post.operationId).toBe('convert');
    expect(document.paths['/api/parse-cv/{id}'].get.operationId).toBe('getParseCvResults');
    const tags = new Map(
      (document.tags as Array<{ name: string; description: string }>).map((tag) => [tag.name, tag.description]),
    );
    for (const { operation } of operations()) {
      expect(tags.get(operation.tags[0]), operation.operationId).toBeTruthy();
      expect(operation.responses['500'], operation.operationId).toEqual({ $ref: '#/components/responses/500' });
    }
    expect(document.info.license.name).toBeTruthy();
    expect(document.info.contact.url).toBe(server.url);
  });

  it('uses standard keywords: password, date-time, uri; merge-pdf is not a convert op', () => {
    const form = document.paths['/api/v1/convert'].post.requestBody.content['multipart/form-data'].schema.properties;
    expect(form.password).toMatchObject({ type: 'string', format: 'password', writeOnly: true });
    expect(JSON.stringify(document)).not.toContain('"secret":true');
    expect(form.op.enum).not.toContain('merge-pdf');
    expect(form.op.enum).toContain('rotate-pdf');
    const schemas = document.components.schemas;
    expect(schemas.Credits.properties.resetDate).toMatchObject({ type: 'string', format: 'date-time' });
    expect(schemas.SignedUrl.properties).toMatchObject({ url: { format: 'uri' }, expiresAt: { format: 'date-time' } });
    expect(schemas.JobStatus.properties.downloadUrl).toMatchObject({ format: 'uri' });
    expect(schemas.AcceptedJob.properties.statusUrl).toMatchObject({ format: 'uri-reference' });
  });

  it('types the rows of each spec extraction tool with every field, and rotate-pdf angle as an integer enum', () => {
    const schemas = document.components.schemas;
    const rowFields = (name: string) => Object.keys(schemas[name].properties.rows.items.properties).sort();
    const base = ['error', 'filename', 'status'];
    expect(rowFields('ParseCvPoll')).toEqual(
      [
        ...base,
        'confidence',
        'email',
        'employer',
        'linkedin',
        'location',
        'name',
        'phone',
        'skills',
        'title',
        'years_exp',
      ].sort(),
    );
    expect(rowFields('TranscribePoll')).toEqual([...base, 'duration', 'language', 'segments', 'text'].sort());
    expect(rowFields('FileSearchPoll')).toEqual([...base, 'count', 'kind', 'matches', 'truncated'].sort());
    expect(rowFields('PdfToMarkdownPoll')).toEqual([...base, 'markdown', 'pages', 'stats'].sort());
    expect(schemas.PdfToMarkdownPoll.properties.rows.items.properties.stats.required).toEqual([
      'headings',
      'tables',
      'words',
      'running_lines_stripped',
    ]);
    expect(schemas.FileSearchPoll.properties.rows.items.properties.matches.items.required).toEqual([
      'location',
      'snippet',
      'offset',
      'length',
    ]);
    for (const tool of ['parse-cv', 'transcribe', 'file-search', 'pdf-to-markdown']) {
      const poll = document.paths[`/api/${tool}/{id}`].get.responses['200'].content['application/json'].schema
        .$ref as string;
      expect(poll).toMatch(/^#\/components\/schemas\/[A-Za-z]+Poll$/);
      expect(poll).not.toBe('#/components/schemas/ExtractionPoll');
    }
    const form = document.paths['/api/v1/convert'].post.requestBody.content['multipart/form-data'].schema.properties;
    expect(form.angle).toMatchObject({ type: 'integer', enum: [90, 180, 270] });
  });

  it('declares Content-Disposition on downloads and the rate headers on the answers that carry them', async () => {
    expect(document.paths['/api/download/{token}'].get.responses['200'].headers).toHaveProperty('Content-Disposition');
    expect(document.paths['/api/batch/{id}/download'].get.responses['200'].headers).toHaveProperty(
      'Content-Disposition',
    );
    const responses = document.components.responses;
    for (const status of ['400', '402', '403', '404', '413', '429', '500'])
      expect(Object.keys(responses[status].headers ?? {}), status).toContain('RateLimit-Remaining');
    expect(responses['401'].headers).toBeUndefined();
    expect(responses['429'].headers).toHaveProperty('Retry-After');
    // A backend that did not answer: on every operation that reads the store, not on the probes.
    expect(Object.keys(responses['503'].headers)).toEqual(['Retry-After']);
    expect(document.paths['/api/v1/jobs/{jobId}'].get.responses['503']).toEqual({ $ref: '#/components/responses/503' });
    expect(document.paths['/healthz'].get.responses['503']).toBeUndefined();
    // A body bounded in time: on every operation that takes files; the deadline's 408 is the HTTP server's own.
    expect(document.paths['/api/v1/convert'].post.responses['408']).toEqual({ $ref: '#/components/responses/408' });
    expect(document.paths['/api/v1/jobs/{jobId}'].get.responses['408']).toBeUndefined();
    expect(responses['408'].headers).toBeUndefined();

    // As sent: a 404 of an authenticated route carries them.
    const key = await server.createKey('pro');
    const res = await fetch(`${server.url}/api/v1/jobs/nope`, { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(404);
    expect(res.headers.get('ratelimit-remaining')).toBeTruthy();
  });

  it('/docs draws every method badge in its own colour', async () => {
    const page = await (await fetch(`${server.url}/docs`)).text();
    for (const method of ['get', 'post', 'patch', 'delete'])
      expect(page).toMatch(new RegExp(`\\.${method}\\{background:#[0-9a-f]{6}\\}`));
    expect(page).toContain('<span class="method patch">PATCH</span>');
  });
});
