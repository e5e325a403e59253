/**
 * A GraphQL operation typed by gql.tada (from schema/schema.graphql, as the web app's
 * apps/web/src/graphql-env.d.ts introspection) sends typed resize options to a real server: the
 * variables' type comes from ConvertOptions, so `npx tsc --noEmit` (npm run typecheck) refuses a
 * wrong option (the @ts-expect-error lines below fail the check if they ever type-check), and the
 * resize runs end to end.
 */
import { initGraphQLTada, type ResultOf, type VariablesOf } from 'gql.tada';
import { print } from 'graphql';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { introspection } from '../apps/web/src/graphql-env.js';
import { authHeaders, download, startServer, waitForJob, type TestServer } from './helpers.js';

const graphql = initGraphQLTada<{
  introspection: introspection;
  scalars: { JSON: unknown; Upload: null; DateTime: string };
}>();

const Resize = graphql(`
  mutation Resize($file: Upload!, $options: ConvertOptions) {
    convert(file: $file, to: "png", op: "resize", options: $options) { jobId status }
  }
`);

const variables: VariablesOf<typeof Resize> = {
  file: null,
  options: { imageResize: { resize: { width: 40, height: 30, fit: 'fill' } } },
};

// The types bite: a width as a string, an unknown fit, and a field no options type has.
const widthAsText: VariablesOf<typeof Resize> = {
  file: null,
  // @ts-expect-error width is an Int
  options: { imageResize: { resize: { width: '40' } } },
};
const unknownFit: VariablesOf<typeof Resize> = {
  file: null,
  // @ts-expect-error fit is one of inside, cover, contain, fill
  options: { imageResize: { resize: { width: 40, fit: 'stretch' } } },
};
// @ts-expect-error ConvertOptions has no field `resize` (the plugin's field is imageResize)
const notAPlugin: VariablesOf<typeof Resize> = { file: null, options: { resize: { width: 40 } } };

// Checked by tsc only: referenced so no linter calls them unused.
void [widthAsText, unknownFit, notAPlugin];

let server: TestServer;
let key: string;

beforeAll(async () => {
  server = await startServer();
  key = await server.createKey('pro');
}, 60_000);
afterAll(() => server?.close());

describe('GraphQL operation typed by gql.tada', () => {
  it('sends typed resize options: the PNG comes back 40 x 30', async () => {
    const png = await sharp({ create: { width: 200, height: 100, channels: 3, background: '#2060c0' } })
      .png()
      .toBuffer();
    const form = new FormData();
    form.append('operations', JSON.stringify({ query: print(Resize), variables }));
    form.append('map', JSON.stringify({ 0: ['variables.file'] }));
    form.append('0', new Blob([new Uint8Array(png)]), 'wide.png');
    const res = await fetch(`${server.url}/graphql`, { method: 'POST', body: form, headers: authHeaders(key) });
    const body = (await res.json()) as { data?: ResultOf<typeof Resize>; errors?: unknown[] };
    expect(body.errors).toBeUndefined();
    const accepted = body.data!.convert!;
    expect(accepted.status).toBe('queued');

    const done = await waitForJob(server.url, key, accepted.jobId);
    expect(done.status).toBe('done');
    const output = await download(done.downloadUrl!);
    expect(await sharp(output.data).metadata()).toMatchObject({ format: 'png', width: 40, height: 30 });
  }, 120_000);
});
