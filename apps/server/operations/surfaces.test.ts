/**
 * Every operation of the table is on every surface: a REST route, a path and method in the OpenAPI
 * document, a root field of the GraphQL schema and a tRPC procedure (the one whose meta names it),
 * all read from the app as the server builds it. An operation on REST alone says why (`restOnly`).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { AnyProcedure } from '@trpc/server';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../shared/config.js';
import { createRuntime, type Runtime } from '../../shared/runtime.js';
import { buildApp } from '../app.js';
import { appRouterFor, operationAt } from '../trpc/router.js';
import { fastifyPath } from './openapi.js';
import type { AnyOperation } from './operation.js';
import { operationTable } from './table.js';

const silent = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

/** The operations served on REST alone, each with its `restOnly` reason: a new one shows here. */
const REST_ONLY = ['download', 'downloadBatch', 'getHealth', 'getReadiness', 'getOpenApiDocument', 'getDocsPage'];

const ROOT_FIELDS = '{ __schema { queryType { fields { name } } mutationType { fields { name } } } }';

describe('every operation of the table on REST, OpenAPI, GraphQL and tRPC', () => {
  let dataDir: string;
  let runtime: Runtime;
  let app: FastifyInstance;
  let table: AnyOperation[];
  let key: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'transmute-surfaces-'));
    const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', WORKERS: '0', OFFICE_POOL_WARM: '0' });
    runtime = await createRuntime({ config, log: silent, servesApi: true });
    app = await buildApp(runtime, pino({ level: 'silent' }));
    await app.ready();
    table = operationTable(runtime.services);
    const account = await runtime.services.accounts.createAccount({ email: 'surfaces@example.com', plan: 'business' });
    key = (await runtime.services.accounts.createKey(account.id)).key;
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    await runtime?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('has the operations a server serves, extraction tools and webhooks included', () => {
    const names = table.map(({ name }) => name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of ['convert', 'createPipeline', 'mergePdf', 'batchConvert', 'getJob', 'getFormats'])
      expect(names).toContain(name);
    expect(names).toContain('pdfToMarkdown');
    expect(names).toContain('getPdfToMarkdownResults');
    expect(names).toContain('updateWebhookEndpoint');
    expect(table.filter((operation) => operation.restOnly).map(({ name }) => name)).toEqual(
      expect.arrayContaining(REST_ONLY),
    );
    expect(table.filter((operation) => operation.restOnly).length).toBe(REST_ONLY.length);
  });

  it('serves each as a REST route', () => {
    const missing = table.filter(({ method, path: route }) => !app.hasRoute({ method, url: fastifyPath(route) }));
    expect(missing.map(({ name }) => name)).toEqual([]);
  });

  it('documents each in OpenAPI under its path and method, named by its operationId', async () => {
    const document = (await app.inject('/api/openapi.json')).json() as {
      paths: Record<string, Record<string, { operationId: string }>>;
    };
    const documented = table.map(
      ({ method, path: route }) => document.paths[route]?.[method.toLowerCase()]?.operationId,
    );
    expect(documented).toEqual(table.map(({ name }) => name));
  });

  it('declares a GraphQL root field for each', async () => {
    const answer = await app.inject({
      method: 'POST',
      url: '/graphql',
      headers: { authorization: `Bearer ${key}` },
      payload: { query: ROOT_FIELDS },
    });
    const schema = answer.json().data.__schema as Record<string, { fields: Array<{ name: string }> }>;
    const fields = (root: 'query' | 'mutation') => new Set(schema[`${root}Type`]!.fields.map(({ name }) => name));
    const roots = { query: fields('query'), mutation: fields('mutation') };
    const missing = table
      .filter((operation) => !operation.restOnly)
      .filter(({ name, graphql }) => !graphql || !roots[graphql.root].has(graphql.field ?? name));
    expect(missing.map(({ name }) => name)).toEqual([]);
  });

  it('serves each as a tRPC procedure (named by its meta), callable over HTTP', async () => {
    // Flattened by path (`jobs.get`); each procedure's _def holds its type and meta.
    const appRouter = appRouterFor(runtime.services);
    const procedures: Record<string, unknown> = appRouter._def.procedures;
    const served = new Map<string, string>();
    for (const procedurePath of Object.keys(procedures)) {
      const operation = operationAt(appRouter, procedurePath);
      if (operation) served.set(operation, procedurePath);
    }
    const missing = table.filter((operation) => !operation.restOnly && !served.has(operation.name));
    expect(missing.map(({ name }) => name)).toEqual([]);
    // Every procedure path answers (here without a key: UNAUTHORIZED, never NOT_FOUND).
    for (const procedurePath of served.values()) {
      const type = (procedures[procedurePath] as AnyProcedure)._def.type;
      const answer = await app.inject({
        method: type === 'query' ? 'GET' : 'POST',
        url: `/trpc/${procedurePath}`,
        ...(type === 'query' ? {} : { headers: { 'content-type': 'application/json' }, payload: '{}' }),
      });
      expect({ procedurePath, status: answer.statusCode }).toEqual({ procedurePath, status: 401 });
    }
  });
});
