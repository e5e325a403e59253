/**
 * examples/plugin loaded as a third party loads it (PLUGINS=, no code change): its conversions
 * and its declared TSV format appear on REST, OpenAPI, GraphQL and tRPC, and it converts real
 * files over HTTP in both directions; a .tsv upload is identified by the plugin's own sniffer.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTransmuteClient } from '../apps/server/trpc/client.js';
import {
  admin,
  authHeaders,
  type ChildServer,
  convertAndDownload,
  getJson,
  spawnServer,
  startServer,
  submitConvert,
  type TestServer,
} from './helpers.js';

const CSV = 'city,population,note\r\nZürich,421878,"lake, mountains"\r\n"Köln",1084831,"say ""Alaaf"""\r\n';
const TSV = 'city\tpopulation\nBern\t134591\nGenève\t203856\n';

describe('examples/plugin loaded with PLUGINS=', () => {
  let server: TestServer;
  let key: string;

  beforeAll(async () => {
    server = await startServer({ env: { PLUGINS: './examples/plugin/index.ts' } });
    key = await server.createKey('free');
  });
  afterAll(() => server.close());

  it('is listed on REST, OpenAPI, GraphQL and tRPC', async () => {
    const rest = await getJson(`${server.url}/api/v1/formats`, key);
    expect(rest.status).toBe(200);
    expect(rest.body.conversions.csv).toContain('tsv');
    expect(rest.body.conversions.tsv).toEqual(['csv']);
    const op = rest.body.operations.find((o: { pluginId: string }) => o.pluginId === 'example-tsv');
    expect(op).toMatchObject({
      kind: 'convert',
      title: 'CSV <-> TSV',
      inputs: ['csv', 'tsv'],
      outputs: ['tsv', 'csv'],
      plan: 'free',
      available: true,
    });
    expect(op.options.properties.trimSpaces).toMatchObject({ type: 'boolean', default: false });

    const openapi = await getJson(`${server.url}/api/openapi.json`, undefined);
    const form = openapi.body.paths['/api/v1/convert'].post.requestBody.content['multipart/form-data'].schema;
    expect(form.properties.to.enum).toContain('tsv');
    expect(form.properties.trimSpaces).toMatchObject({ type: 'boolean' });

    const gql = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...authHeaders(key) },
      body: JSON.stringify({
        query: '{ formats { conversions { from to } operations { pluginId inputs outputs optionsType } } }',
      }),
    }).then((res) => res.json());
    expect(gql.data.formats.conversions).toContainEqual({ from: 'tsv', to: ['csv'] });
    expect(gql.data.formats.operations).toContainEqual({
      pluginId: 'example-tsv',
      inputs: ['csv', 'tsv'],
      outputs: ['tsv', 'csv'],
      optionsType: 'ExampleTsvOptions',
    });

    const trpc = await createTransmuteClient(server.url, key).formats.list.query();
    expect(trpc).toEqual(rest.body);
  });

  it('converts CSV to TSV over HTTP', async () => {
    const { data, filename, job } = await convertAndDownload(
      server.url,
      key,
      { name: 'cities.csv', data: CSV },
      { to: 'tsv' },
    );
    expect(filename).toBe('cities.tsv');
    expect(job.status).toBe('done');
    expect(data.toString('utf8')).toBe(
      'city\tpopulation\tnote\nZürich\t421878\tlake, mountains\nKöln\t1084831\tsay "Alaaf"\n',
    );
  });

  it('converts an uploaded .tsv to CSV, with an option sent as a string', async () => {
    const padded = TSV.replace('Bern', '  Bern ');
    const { data, filename } = await convertAndDownload(
      server.url,
      key,
      { name: 'cities.tsv', data: padded },
      { to: 'csv', trimSpaces: 'true' },
    );
    expect(filename).toBe('cities.csv');
    expect(data.toString('utf8')).toBe('city,population\r\nBern,134591\r\nGenève,203856\r\n');
  });

  it("refuses a .tsv whose content the plugin's sniffer rejects", async () => {
    const res = await submitConvert(
      server.url,
      key,
      { name: 'cities.tsv', data: 'no tabs here, just words\n' },
      { to: 'csv' },
    );
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/named \.tsv but contains data the tsv sniffer refuses/);
  });
});

/**
 * As `npm start` runs it: the compiled server (scripts/build-app.mjs) registers tsx for this
 * TypeScript module alone, in the API process and in the sandbox that runs it.
 */
describe('examples/plugin, TypeScript, in the compiled server', () => {
  let server: ChildServer;
  let key: string;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'transmute-example-compiled-'));
    key = (await admin(dataDir, 'create-key', '--plan', 'free')).result.key;
    server = await spawnServer({ DATA_DIR: dataDir, PLUGINS: './examples/plugin/index.ts' });
  }, 120_000);
  afterAll(async () => {
    await server?.kill();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('lists the plugin on REST and GraphQL and converts both ways', async () => {
    const rest = await getJson(`${server.url}/api/v1/formats`, key);
    expect(rest.body.conversions.tsv).toEqual(['csv']);
    const gql = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...authHeaders(key) },
      body: JSON.stringify({ query: '{ formats { operations { pluginId } } }' }),
    }).then((res) => res.json());
    expect(gql.data.formats.operations).toContainEqual({ pluginId: 'example-tsv' });

    const toTsv = await convertAndDownload(server.url, key, { name: 'cities.csv', data: CSV }, { to: 'tsv' });
    expect(toTsv.data.toString('utf8')).toBe(
      'city\tpopulation\tnote\nZürich\t421878\tlake, mountains\nKöln\t1084831\tsay "Alaaf"\n',
    );
    // The plugin's own format and sniffer, declared through the package's TypeScript exports.
    const toCsv = await convertAndDownload(server.url, key, { name: 'cities.tsv', data: TSV }, { to: 'csv' });
    expect(toCsv.data.toString('utf8')).toBe('city,population\r\nBern,134591\r\nGenève,203856\r\n');
    const refused = await submitConvert(server.url, key, { name: 'cities.tsv', data: 'no tabs\n' }, { to: 'csv' });
    expect(refused.status).toBe(400);
  });
});
