/**
 * The API process loads no engine library: a real server, spawned with a module hook
 * that records every import it resolves (test/testing/record-imports.mjs; its sandbox processes are
 * forked without the hook), runs one job of every family over HTTP. Then no engine library is
 * reachable in the server's import graph, and none of their native addons is mapped into it; nor
 * is the driver of any backend a default server does not use (the API process's RSS). The server is
 * the compiled one `npm start` runs, without tsx.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scannedPdf } from '../plugins/ocr/testing/fixtures.js';
import {
  ROOT,
  admin,
  authHeaders,
  getJson,
  spawnServer,
  submitConvert,
  waitForJob,
  type ChildServer,
} from './helpers.js';
import { ENGINE_LIBRARIES } from './testing/plugin-shape.js';

const RECORD_IMPORTS = path.join(ROOT, 'test/testing/record-imports.mjs');
/** Packages imported only when their backend is configured (apps/shared/runtime.ts, core/services). */
const UNCONFIGURED_BACKENDS = [
  'mongodb',
  'pg',
  '@agendajs/mongo-backend',
  '@agendajs/postgres-backend',
  '@aws-sdk/client-s3',
  '@aws-sdk/lib-storage',
  'nodemailer',
  '@opentelemetry/sdk-node',
];

async function textPdf(text: string): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([595, 842]);
  page.drawText(text, { font: await doc.embedFont(StandardFonts.Helvetica), size: 14, x: 72, y: 760 });
  return Buffer.from(await doc.save());
}

/** Half a second of 8 kHz mono silence as a WAV file. */
function silentWav(): Buffer {
  const samples = 4000;
  const wav = Buffer.alloc(44 + samples * 2);
  wav.write('RIFF', 0);
  wav.writeUInt32LE(36 + samples * 2, 4);
  wav.write('WAVEfmt ', 8);
  wav.writeUInt32LE(16, 16);
  wav.writeUInt16LE(1, 20); // PCM
  wav.writeUInt16LE(1, 22); // mono
  wav.writeUInt32LE(8000, 24);
  wav.writeUInt32LE(16000, 28);
  wav.writeUInt16LE(2, 32);
  wav.writeUInt16LE(16, 34);
  wav.write('data', 36);
  wav.writeUInt32LE(samples * 2, 40);
  return wav;
}

/** Engine libraries the recorded graph reaches, each with one import chain to it. */
function engineLibrariesReached(edges: ReadonlyArray<[string, string]>): string[] {
  const children = new Map<string, string[]>();
  const imported = new Set<string>();
  for (const [parent, child] of edges) {
    imported.add(child);
    children.set(parent, [...(children.get(parent) ?? []), child]);
  }
  const roots = [...children.keys()].filter((url) => !imported.has(url));
  const via = new Map<string, string | undefined>(roots.map((root) => [root, undefined]));
  const queue = [...roots];
  while (queue.length) {
    const current = queue.shift()!;
    for (const child of children.get(current) ?? []) {
      if (via.has(child)) continue;
      via.set(child, current);
      queue.push(child);
    }
  }
  const libraryOf = (url: string) => ENGINE_LIBRARIES.find((library) => url.includes(`/node_modules/${library}/`));
  const reached = [...via.keys()].filter((url) => libraryOf(url) && !libraryOf(via.get(url) ?? ''));
  return reached.map((url) => {
    const chain: string[] = [];
    for (let at: string | undefined = url; at; at = via.get(at)) chain.unshift(at.replace(`file://${ROOT}/`, ''));
    return `${libraryOf(url)}: ${chain.join(' -> ')}`;
  });
}

describe('the API process', () => {
  let server: ChildServer;
  let key: string;
  let dataDir: string;
  const graphFile = path.join(os.tmpdir(), `transmute-imports-${process.pid}-${Date.now()}.tsv`);

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'transmute-light-'));
    key = (await admin(dataDir, 'create-key', '--plan', 'enterprise')).result.key;
    server = await spawnServer(
      { DATA_DIR: dataDir, IMPORT_GRAPH_FILE: graphFile },
      { nodeArgs: ['--import', RECORD_IMPORTS] },
    );
  }, 300_000);

  afterAll(async () => {
    await server?.kill();
    await rm(dataDir, { recursive: true, force: true });
    await rm(graphFile, { force: true });
  });

  it('runs one job of every family without loading an engine library', { timeout: 600_000 }, async () => {
    const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#3366cc' } })
      .png()
      .toBuffer();
    const pdf = await textPdf('Jane Doe, secret report, jane@example.com');
    const scan = await scannedPdf(path.join(dataDir, 'scan.pdf'), [['HELLO WORLD']]);
    const jobs: Array<{ family: string; file: { name: string; data: Buffer }; fields: Record<string, string> }> = [
      { family: 'image', file: { name: 'a.png', data: png }, fields: { to: 'jpg' } },
      { family: 'data', file: { name: 'a.csv', data: Buffer.from('a,b\n1,2\n') }, fields: { to: 'json' } },
      { family: 'media', file: { name: 'a.wav', data: silentWav() }, fields: { to: 'mp3' } },
      { family: 'pdf', file: { name: 'a.pdf', data: pdf }, fields: { to: 'pdf', op: 'rotate-pdf', angle: '90' } },
      { family: 'ocr', file: { name: 'scan.pdf', data: await readFile(scan) }, fields: { to: 'pdf', op: 'ocr' } },
      { family: 'office', file: { name: 'a.txt', data: Buffer.from('Hello office\n') }, fields: { to: 'pdf' } },
      {
        family: 'redact',
        file: { name: 'b.pdf', data: pdf },
        fields: { to: 'pdf', op: 'redact', redact: '{"patterns":["email"]}' },
      },
      { family: 'thumbnail', file: { name: 'c.pdf', data: pdf }, fields: { to: 'png', op: 'thumbnail' } },
      { family: 'web', file: { name: 'a.md', data: Buffer.from('# Title\n\nText.\n') }, fields: { to: 'pdf' } },
    ];
    const finished: Record<string, string> = {};
    for (const { family, file, fields } of jobs) {
      const accepted = await submitConvert(server.url, key, file, fields);
      expect(accepted.status, `${family}: ${JSON.stringify(accepted.body)}`).toBe(200);
      const job = await waitForJob(server.url, key, accepted.body.jobId, 180_000);
      finished[family] = job.status === 'done' ? 'done' : `failed: ${job.error}`;
    }
    const extractions: Array<{ family: string; tool: string; file: { name: string; data: Buffer } }> = [
      { family: 'markdown', tool: 'pdf-to-markdown', file: { name: 'd.pdf', data: pdf } },
      { family: 'cv', tool: 'parse-cv', file: { name: 'cv.pdf', data: pdf } },
      { family: 'search', tool: 'file-search', file: { name: 'notes.txt', data: Buffer.from('a secret note') } },
      { family: 'transcribe', tool: 'transcribe', file: { name: 'a.wav', data: silentWav() } },
    ];
    for (const { family, tool, file } of extractions) {
      const form = new FormData();
      if (tool === 'file-search') form.append('query', 'secret');
      form.append('files', new Blob([new Uint8Array(file.data)]), file.name);
      const res = await fetch(`${server.url}/api/${tool}`, { method: 'POST', body: form, headers: authHeaders(key) });
      const body = (await res.json()) as { statusUrl?: string };
      expect(res.status, `${family}: ${JSON.stringify(body)}`).toBe(200);
      for (const deadline = Date.now() + 180_000; ; await new Promise((r) => setTimeout(r, 250))) {
        const poll = await getJson(`${server.url}${body.statusUrl}`, key);
        if (poll.body.done) {
          finished[family] = poll.body.failed ? `failed: ${JSON.stringify(poll.body.rows)}` : 'done';
          break;
        }
        if (Date.now() > deadline) throw new Error(`${tool} did not finish`);
      }
    }
    // Every family ran in a sandbox (a failed run still loaded its run code there, never here).
    expect(Object.keys(finished).sort()).toEqual(
      [...jobs.map((j) => j.family), ...extractions.map((e) => e.family)].sort(),
    );
    expect(finished.image).toBe('done');
    expect(finished.data).toBe('done');
    expect(finished.ocr).toBe('done');

    const edges = (await readFile(graphFile, 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((line) => line.split('\t') as [string, string]);
    expect(edges.length).toBeGreaterThan(100); // the hook did record the server's imports
    // It runs what `npm start` runs: the compiled tree, with no TypeScript loader (tsx's hooks thread
    // and transforms cost the process tens of MB) and no TypeScript module.
    const modules = edges.map(([, child]) => child).filter((url) => url.startsWith('file:'));
    expect(modules.some((url) => url.includes('/.build/app-'))).toBe(true);
    expect(modules.filter((url) => /\/node_modules\/tsx\/|\.[cm]?tsx?$/.test(url))).toEqual([]);
    expect(engineLibrariesReached(edges)).toEqual([]);
    // Nor the drivers of backends a default server (SQLite, local disk, outbox, no OTel) does not use.
    const loadedPackages = new Set(edges.map(([, child]) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(child)?.[1]));
    expect(UNCONFIGURED_BACKENDS.filter((name) => loadedPackages.has(name))).toEqual([]);

    const maps = await readFile(`/proc/${server.process.pid}/maps`, 'utf8');
    // Native code of the engine libraries: sharp's addon and libvips, onnxruntime's addon and runtime.
    const mapped = [...new Set(maps.match(/\/\S+$/gm) ?? [])];
    expect(mapped.filter((file) => /@img\/sharp|libvips|onnxruntime/.test(file))).toEqual([]);
  });
});
