/**
 * The tRPC procedures are placed by the operation table (each operation's `trpc.path`): the set a
 * client sees is pinned here, so a change to a declaration that moves, adds or drops a procedure
 * shows. A table that does not place what AppRouter's type says is refused when the router is built.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { inferRouterInputs } from '@trpc/server';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import type {
  historyQuerySchema,
  pipelineRequestSchema,
  signedUrlRequestSchema,
  webhookEndpointCreateSchema,
  webhookEndpointUpdateSchema,
} from '../../../schema/index.js';
import { loadConfig } from '../../shared/config.js';
import { createRuntime, type Runtime } from '../../shared/runtime.js';
import type { AnyOperation } from '../operations/operation.js';
import { operationTable } from '../operations/table.js';
import { type AppRouter, appRouterFor, createAppRouter, operationAt } from './router.js';

// The inputs clients are typed with, read from the declarations (the outputs: test/trpc-outputs.e2e.test.ts).
type Inputs = inferRouterInputs<AppRouter>;
expectTypeOf<Inputs['jobs']['get']>().toEqualTypeOf<{ jobId: string }>();
// May be called without input: every field has a default.
expectTypeOf<Exclude<Inputs['history']['list'], void>>().toEqualTypeOf<z.input<typeof historyQuerySchema>>();
expectTypeOf<undefined>().toExtend<Inputs['history']['list']>();
expectTypeOf<Inputs['signedUrl']['create']>().toEqualTypeOf<z.input<typeof signedUrlRequestSchema>>();
expectTypeOf<Inputs['convert']>().toEqualTypeOf<FormData>();
expectTypeOf<Inputs['batch']['convert']>().toEqualTypeOf<FormData>();
expectTypeOf<Inputs['extraction']['parseCv']>().toEqualTypeOf<FormData>();
expectTypeOf<Inputs['pipelines']['create']>().toEqualTypeOf<FormData | z.input<typeof pipelineRequestSchema>>();
expectTypeOf<Inputs['batch']['get']>().toEqualTypeOf<{ batchId: string }>();
expectTypeOf<Inputs['extraction']['transcribeResults']>().toEqualTypeOf<{ batchId: string }>();
expectTypeOf<Inputs['webhooks']['list']>().toEqualTypeOf<void>();
expectTypeOf<Inputs['webhooks']['create']>().toEqualTypeOf<z.input<typeof webhookEndpointCreateSchema>>();
expectTypeOf<Inputs['webhooks']['update']>().toEqualTypeOf<{
  id: string;
  patch: z.input<typeof webhookEndpointUpdateSchema>;
}>();
expectTypeOf<Inputs['webhooks']['attempts']>().toEqualTypeOf<{ id: string; limit?: number | undefined }>();

const silent = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

const kindOf = (procedure: unknown) => {
  const def: unknown = typeof procedure === 'function' && '_def' in procedure ? procedure._def : undefined;
  return typeof def === 'object' && def !== null && 'type' in def ? def.type : undefined;
};

/** Every procedure path with its kind and the operation it serves (none: the router's own two). */
const PROCEDURES = [
  'batch.cancel mutation cancelBatch',
  'batch.convert mutation batchConvert',
  'batch.get query getBatch',
  'convert mutation convert',
  'credits.get query getCredits',
  'extraction.fileSearch mutation fileSearch',
  'extraction.fileSearchResults query getFileSearchResults',
  'extraction.get query -',
  'extraction.parseCv mutation parseCv',
  'extraction.parseCvResults query getParseCvResults',
  'extraction.pdfToMarkdown mutation pdfToMarkdown',
  'extraction.pdfToMarkdownResults query getPdfToMarkdownResults',
  'extraction.transcribe mutation transcribe',
  'extraction.transcribeResults query getTranscribeResults',
  'formats.list query getFormats',
  'history.list query getHistory',
  'jobs.cancel mutation cancelJob',
  'jobs.get query getJob',
  'jobs.watch subscription -',
  'merge mutation mergePdf',
  'pipelines.create mutation createPipeline',
  'signedUrl.create mutation createSignedUrl',
  'webhooks.attempts query listWebhookAttempts',
  'webhooks.create mutation createWebhookEndpoint',
  'webhooks.delete mutation deleteWebhookEndpoint',
  'webhooks.get query getWebhookEndpoint',
  'webhooks.list query listWebhookEndpoints',
  'webhooks.rotateDefaultSecret mutation rotateDefaultWebhookSecret',
  'webhooks.rotateSecret mutation rotateWebhookSecret',
  'webhooks.sendTest mutation sendTestWebhook',
  'webhooks.update mutation updateWebhookEndpoint',
];

describe('the tRPC router placed by the operation table', () => {
  let dataDir: string;
  let runtime: Runtime;
  let table: AnyOperation[];

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'transmute-trpc-router-'));
    const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', WORKERS: '0', OFFICE_POOL_WARM: '0' });
    runtime = await createRuntime({ config, log: silent, servesApi: true });
    table = operationTable(runtime.services);
  }, 120_000);

  afterAll(async () => {
    await runtime?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('serves the same procedures at the same paths, of the same kinds', () => {
    const appRouter = appRouterFor(runtime.services);
    // Flattened by path (`jobs.get`); each procedure's _def holds its type and meta.
    const procedures: Record<string, unknown> = appRouter._def.procedures;
    const served = Object.entries(procedures).map(
      ([procedurePath, procedure]) =>
        `${procedurePath} ${kindOf(procedure)} ${operationAt(appRouter, procedurePath) ?? '-'}`,
    );
    expect(served.sort()).toEqual(PROCEDURES);
  });

  it('refuses a table that places two procedures at one path, or one at a path the router declares', () => {
    const moved = (name: string, to: string) =>
      table.map((operation) => (operation.name === name ? { ...operation, trpc: { path: to } } : operation));
    expect(() => createAppRouter(moved('getCredits', 'jobs.get'))).toThrow("two procedures at 'jobs.get'");
    expect(() => createAppRouter(moved('getCredits', 'jobs.watch'))).toThrow("'jobs.watch' (getCredits) is declared");
    expect(() => createAppRouter(moved('getCredits', 'jobs.get.now'))).toThrow('is under a procedure');
  });

  it('refuses a table that does not place an operation where AppRouter says it is', () => {
    const without = (name: string) => table.filter((operation) => operation.name !== name);
    expect(() => createAppRouter(without('getJob'))).toThrow('does not place its typed operations');
    expect(() => createAppRouter(without('getParseCvResults'))).toThrow('does not place its typed operations');
    const elsewhere = table.map((operation) =>
      operation.name === 'getHistory' ? { ...operation, trpc: { path: 'history.all' } } : operation,
    );
    expect(() => createAppRouter(elsewhere)).toThrow('does not place its typed operations');
  });
});
