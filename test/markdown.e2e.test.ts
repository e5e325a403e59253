/**
 * pdf-to-markdown through HTTP on scans: `lang` picks tesseract's languages for pages with no
 * text layer, on REST (multipart field), GraphQL and tRPC alike, and is refused like the OCR
 * tool's `lang` when it names a language that is not offered.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { TRPCClientError } from '@trpc/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTransmuteClient } from '../apps/server/trpc/client.js';
import { pdfToMarkdownPlugin as markdownPlugin } from '../plugins/markdown/pdf-to-markdown/index.js';
import { scannedPdf } from '../plugins/ocr/testing/fixtures.js';
import { authHeaders, getJson, startServer, type TestServer } from './helpers.js';

const FRENCH = ['Le château près de la forêt', 'Élève déçu à côté du garçon', 'Où est la fenêtre ? Très bientôt.'];
const GERMAN = ['Die Größe der Brücke über dem Fluss', 'Fünf Bäume stehen an der Straße', 'Schöne Grüße aus München'];
const JAPANESE = ['東京都の会議室で打ち合わせ', '来週の予定を確認しました', '資料は明日送ります'];

type Row = { filename: string; status: string; pages: number; markdown: string; stats: Record<string, number> };

async function submit(
  url: string,
  key: string,
  file: { name: string; data: Buffer },
  fields: Record<string, string> = {},
) {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  form.append('files', new Blob([new Uint8Array(file.data)]), file.name);
  const res = await fetch(`${url}/api/pdf-to-markdown`, { method: 'POST', body: form, headers: authHeaders(key) });
  return { status: res.status, body: (await res.json()) as any };
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (let i = 0; i < 1200; i++) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('extraction did not finish');
}

async function restRow(url: string, key: string, statusUrl: string): Promise<Row> {
  const poll = await until(
    async () => (await getJson(`${url}${statusUrl}`, key)).body,
    (body) => body.done === true,
  );
  expect(poll).toMatchObject({ done: true, completed: 1, failed: 0 });
  return poll.rows[0] as Row;
}

describe('pdf-to-markdown: scans in the language given', () => {
  let server: TestServer;
  let dir: string;
  let french: { name: string; data: Buffer };
  let german: { name: string; data: Buffer };
  let japanese: { name: string; data: Buffer };

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'markdown-e2e-'));
    server = await startServer({ plugins: [markdownPlugin] });
    french = { name: 'lettre.pdf', data: await readFile(await scannedPdf(path.join(dir, 'fr.pdf'), [FRENCH])) };
    german = { name: 'brief.pdf', data: await readFile(await scannedPdf(path.join(dir, 'de.pdf'), [GERMAN])) };
    japanese = {
      name: 'memo.pdf',
      data: await readFile(await scannedPdf(path.join(dir, 'ja.pdf'), [JAPANESE], 'IPAGothic')),
    };
  });
  afterAll(async () => {
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('REST: lang=fra reads the accents that the default (eng) loses', async () => {
    const key = await server.createKey('pro');
    const [fra, eng] = await Promise.all([
      submit(server.url, key, french, { lang: 'fra' }),
      submit(server.url, key, french),
    ]);
    expect([fra.status, eng.status]).toEqual([200, 200]);
    const [inFrench, inEnglish] = await Promise.all([
      restRow(server.url, key, fra.body.statusUrl),
      restRow(server.url, key, eng.body.statusUrl),
    ]);
    expect(inFrench).toMatchObject({ filename: 'lettre.pdf', status: 'completed', pages: 1, stats: { ocr_pages: 1 } });
    for (const word of [
      'château',
      'près',
      'forêt',
      'Élève',
      'déçu',
      'côté',
      'garçon',
      'Où',
      'fenêtre',
      'Très',
      'bientôt',
    ])
      expect(inFrench.markdown).toContain(word);
    expect(inFrench.markdown).toBe(
      '<!-- page 1 -->\n\nLe château près de la forêt Élève déçu à côté du garçon Où est la fenêtre ? Très bientôt.\n',
    );
    // English data has no ç and reads â, ê as other letters: the same scan loses its words.
    expect(inEnglish.stats.ocr_pages).toBe(1);
    for (const word of ['château', 'garçon', 'déçu']) expect(inEnglish.markdown).not.toContain(word);
  }, 180_000);

  it('REST: lang=jpn reads Japanese, its words and lines joined without spaces', async () => {
    const key = await server.createKey('pro');
    const res = await submit(server.url, key, japanese, { lang: 'jpn', pageBreaks: 'false' });
    expect(res.status).toBe(200);
    const row = await restRow(server.url, key, res.body.statusUrl);
    expect(row).toMatchObject({ filename: 'memo.pdf', status: 'completed', stats: { ocr_pages: 1 } });
    expect(row.markdown).toBe(`${JAPANESE.join('')}\n`);
  }, 180_000);

  it('GraphQL and tRPC take lang too (deu), and refuse a language that is not offered', async () => {
    const key = await server.createKey('pro');
    const query =
      'mutation M($files: [Upload!]!, $lang: String) { pdfToMarkdown(files: $files, lang: $lang) { batchId total ' +
      'errors { filename error } } }';
    const form = new FormData();
    form.append('operations', JSON.stringify({ query, variables: { files: [null], lang: 'deu' } }));
    form.append('map', JSON.stringify({ 0: ['variables.files.0'] }));
    form.append('0', new Blob([new Uint8Array(german.data)]), german.name);
    const gql = (await (
      await fetch(`${server.url}/graphql`, { method: 'POST', body: form, headers: authHeaders(key) })
    ).json()) as any;
    expect(gql.errors, JSON.stringify(gql.errors)).toBeUndefined();
    expect(gql.data.pdfToMarkdown).toMatchObject({ total: 1, errors: [] });
    const viaGraphql = await restRow(server.url, key, `/api/pdf-to-markdown/${gql.data.pdfToMarkdown.batchId}`);
    expect(viaGraphql.markdown).toBe(
      '<!-- page 1 -->\n\nDie Größe der Brücke über dem Fluss Fünf Bäume stehen an der Straße Schöne Grüße aus ' +
        'München\n',
    );

    const trpc = createTransmuteClient(server.url, key);
    const trpcForm = new FormData();
    trpcForm.append('lang', 'deu+fra');
    trpcForm.append('pageBreaks', 'false');
    trpcForm.append('files', new Blob([new Uint8Array(german.data)]), german.name);
    const accepted = await trpc.extraction.pdfToMarkdown.mutate(trpcForm);
    const viaTrpc = await restRow(server.url, key, accepted.statusUrl);
    for (const word of ['Größe', 'Brücke', 'über', 'Fünf', 'Bäume', 'Straße', 'Schöne', 'Grüße', 'München'])
      expect(viaTrpc.markdown).toContain(word);

    for (const lang of ['spa', 'eng+fra+deu+jpn', 'fra+fra']) {
      const refused = await submit(server.url, key, german, { lang });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatch(/^Invalid lang: (must be eng, fra, deu or jpn|lists fra twice)/);
    }
    const badForm = new FormData();
    badForm.append('lang', 'spa');
    badForm.append('files', new Blob([new Uint8Array(german.data)]), german.name);
    const failure = await trpc.extraction.pdfToMarkdown.mutate(badForm).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(TRPCClientError);
    expect((failure as TRPCClientError<any>).data?.code).toBe('BAD_REQUEST');
  }, 180_000);
});
