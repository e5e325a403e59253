/**
 * parse-cv over HTTP on CVs from the second, independent generator (bench/cv/second, committed):
 * a Europass label column read row by row, employers kept whole and apart from their city
 * ("Homenick - Balistreri Ltd, Leeds", "Weber - Stahlbau (Nürnberg)", "Editorial Alhambra S.A. —
 * Bilbao"), a name in a sidebar table, an address reduced to its place.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SECOND_FILES_DIR } from '../bench/cv/second/generate.js';
import { authHeaders, getJson, startServer, type TestServer } from './helpers.js';

async function parse(server: TestServer, key: string, files: string[]) {
  const form = new FormData();
  for (const file of files)
    form.append('files', new Blob([new Uint8Array(readFileSync(join(SECOND_FILES_DIR, file)))]), file);
  const res = await fetch(`${server.url}/api/parse-cv`, { method: 'POST', body: form, headers: authHeaders(key) });
  expect(res.status).toBe(200);
  const { statusUrl } = (await res.json()) as { statusUrl: string };
  for (let i = 0; i < 600; i++) {
    const { body } = await getJson(`${server.url}${statusUrl}`, key);
    if (body.done) return body.rows as Array<Record<string, unknown>>;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('parse-cv did not finish');
}

describe('parse-cv on an independent generator', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  it('keeps employers whole and apart from their city, reads label columns and sidebars', async () => {
    const key = await server.createKey('pro');
    const rows = await parse(server, key, ['es-00-europass-pdf.pdf', 'en-02-us-docx.docx', 'de-06-twopage-docx.docx']);
    expect(rows.map((row) => row.status)).toEqual(['completed', 'completed', 'completed']);
    expect(rows[0]).toMatchObject({
      name: 'Diego García',
      title: 'Coordinadora de marketing',
      employer: 'Editorial Alhambra S.A.',
      location: '46023 Valencia, España',
      // 02.2024 – 03.2025 and 01.2021 – 01.2024: 51 months, both ranges closed.
      years_exp: 4.3,
    });
    expect(rows[0]!.skills).toEqual(expect.arrayContaining(['Negociación', 'AutoCAD', 'Excel avanzado']));
    expect(rows[1]).toMatchObject({
      name: 'Naomi Fairbairn',
      title: 'Senior Data Analyst',
      employer: 'Homenick - Balistreri Ltd',
      location: 'Leeds, United Kingdom',
    });
    expect(rows[2]).toMatchObject({
      name: 'Lukas Ziegler',
      title: 'Vertriebsleiter',
      employer: 'Weber - Stahlbau',
      location: 'Bremen, Deutschland',
    });
    for (const row of rows) expect((row.confidence as Record<string, number>).employer).toBeGreaterThan(0);
  });
});
