/**
 * A download while the S3 store does not answer: the object is read once the answer has begun (its headers say
 * "a file"), so the failure reaches the error handler after them. The answer is still the contract's: 503 with
 * Retry-After and a JSON `{ error }`, without the file's headers; once the store is back, the same link works.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SLOW_TEXT_PLUGIN, startServer, submitConvert, waitForJob, type TestServer } from './helpers.js';
import { startPostgres, type PostgresTestServer } from './servers/postgres.js';
import { startS3Server, type S3TestServer } from './servers/s3.js';

let postgres: PostgresTestServer;
let s3: S3TestServer;
let server: TestServer;

beforeAll(async () => {
  [postgres, s3] = await Promise.all([startPostgres(), startS3Server()]);
  server = await startServer({
    env: {
      POSTGRES_URL: await postgres.createDatabase(),
      ...s3.env(await s3.newBucket()),
      MONGODB_URL: '',
      TOKEN_SECRET: 'download-unavailable-test-secret-0123456789abcdef',
      PLUGINS: SLOW_TEXT_PLUGIN,
    },
  });
}, 120_000);

afterAll(async () => {
  await server?.close();
  await Promise.all([postgres?.stop(), s3?.stop()]);
});

it('answers 503 with Retry-After and a JSON error while the file store is down, then the file', {
  timeout: 90_000,
}, async () => {
  const key = await server.createKey('pro');
  const accepted = await submitConvert(server.url, key, { name: 'a.txt', data: 'kept' }, { to: 'md', steps: '1' });
  expect(accepted.status).toBe(200);
  const job = await waitForJob(server.url, key, accepted.body.jobId);
  expect(job.status).toBe('done');

  await s3.stopServer();
  const down = await fetch(job.downloadUrl!);
  expect(down.status).toBe(503);
  expect(Number(down.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(down.headers.get('content-type')).toMatch(/^application\/json/);
  expect(down.headers.get('content-disposition')).toBeNull();
  expect(await down.json()).toEqual({ error: expect.stringMatching(/file store did not answer; try again/) });

  await s3.startServer();
  // As a client does after a 503: again after Retry-After, a bounded number of times.
  let up = await fetch(job.downloadUrl!);
  for (let i = 0; i < 10 && up.status === 503; i++) {
    await new Promise((resolve) => setTimeout(resolve, 2000));
    up = await fetch(job.downloadUrl!);
  }
  expect(up.status, await up.clone().text()).toBe(200);
  expect(await up.text()).toBe('# Converted\n\nKEPT\n');
});
