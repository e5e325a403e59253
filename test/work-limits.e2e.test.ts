/**
 * Bounded work per job on the tools that newly declare it: a PDF past the page maximum
 * or a recording past 2 hours is refused at submit with a 400 naming the limit, before any credit
 * is spent, on the extraction endpoints (pdf-to-markdown, parse-cv, transcribe) and on convert
 * (pdf-to-docx).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cvPlugins } from '../plugins/cv/index.js';
import { markdownPlugins } from '../plugins/markdown/index.js';
import { transcribePlugins } from '../plugins/transcribe/index.js';
import { wavHeader } from '../plugins/transcribe/testing/fixtures.js';
import { manyPagePdf } from '../plugins/pdf/testing/fixtures.js';
import { authHeaders, getJson, startServer, submitConvert, type TestServer } from './helpers.js';

async function submitExtraction(url: string, key: string, tool: string, files: Array<{ name: string; data: Buffer }>) {
  const form = new FormData();
  for (const file of files) form.append('files', new Blob([new Uint8Array(file.data)]), file.name);
  const res = await fetch(`${url}/api/${tool}`, { method: 'POST', body: form, headers: authHeaders(key) });
  return { status: res.status, body: (await res.json()) as any };
}

const creditsUsed = async (url: string, key: string) =>
  (await getJson(`${url}/api/v1/credits`, key)).body.creditsUsed as number;

describe('page maxima of the PDF extraction and PDF -> DOCX tools, over HTTP', () => {
  let server: TestServer;
  let fiveThousandPages: Buffer;
  let onePage: Buffer;

  beforeAll(async () => {
    [server, fiveThousandPages, onePage] = await Promise.all([
      startServer({ plugins: [...markdownPlugins, ...cvPlugins, ...transcribePlugins] }),
      manyPagePdf(5000).then(Buffer.from),
      manyPagePdf(1).then(Buffer.from),
    ]);
  }, 120_000);
  afterAll(() => server.close());

  it('refuses a 5,000-page PDF sent to pdf-to-markdown: a 400 naming the page limit, no charge', async () => {
    const key = await server.createKey('pro');
    const { status, body } = await submitExtraction(server.url, key, 'pdf-to-markdown', [
      { name: 'book.pdf', data: fiveThousandPages },
    ]);
    expect(status).toBe(400);
    expect(body.error).toBe(
      'No file could be accepted: book.pdf: pdf-to-markdown takes at most 2,000 pages per job; ' +
        'the file has 5,000 pages: split it first (op split-pdf)',
    );
    expect(await creditsUsed(server.url, key)).toBe(0);
  });

  it('accepts the files under the limit and lists the one past it in the batch errors', async () => {
    const key = await server.createKey('pro');
    const { status, body } = await submitExtraction(server.url, key, 'pdf-to-markdown', [
      { name: 'short.pdf', data: onePage },
      { name: 'book.pdf', data: fiveThousandPages },
    ]);
    expect(status).toBe(200);
    expect(body.total).toBe(1);
    expect(body.errors).toEqual([
      {
        filename: 'book.pdf',
        error:
          'pdf-to-markdown takes at most 2,000 pages per job; the file has 5,000 pages: split it first (op split-pdf)',
      },
    ]);
  });

  it('refuses a 5,000-page PDF sent to parse-cv, naming its 500-page limit', async () => {
    const key = await server.createKey('pro');
    const { status, body } = await submitExtraction(server.url, key, 'parse-cv', [
      { name: 'cv.pdf', data: fiveThousandPages },
    ]);
    expect(status).toBe(400);
    expect(body.error).toContain('parse-cv takes at most 500 pages per job; the file has 5,000 pages');
  });

  it('refuses a 5,000-page PDF converted to DOCX at submit, naming the page limit', async () => {
    const key = await server.createKey('pro');
    const { status, body } = await submitConvert(
      server.url,
      key,
      { name: 'book.pdf', data: fiveThousandPages },
      {
        to: 'docx',
      },
    );
    expect(status).toBe(400);
    expect(body.error).toMatch(/takes at most 2,000 pages per job; book\.pdf has 5,000 pages: split it first/);
    expect(await creditsUsed(server.url, key)).toBe(0);
  });

  it('refuses a recording over 2 hours sent to transcribe, before decoding it or spending a credit', async () => {
    const key = await server.createKey('business');
    // 2 h 0 min 5 s of 1 kHz 8-bit silence (7 MB): ffprobe reads the length from the header.
    const dataBytes = 7205 * 1000;
    const data = Buffer.concat([
      wavHeader({ sampleRate: 1000, bitsPerSample: 8, dataBytes }),
      Buffer.alloc(dataBytes, 0x80),
    ]);
    const { status, body } = await submitExtraction(server.url, key, 'transcribe', [{ name: 'long.wav', data }]);
    expect(status).toBe(400);
    expect(body.error).toBe(
      'No file could be accepted: long.wav: transcribe takes at most 2 hours of media per job; ' +
        'the file has 7,205 seconds of media: cut it first (op trim-media)',
    );
    expect(await creditsUsed(server.url, key)).toBe(0);
  });
});
