/**
 * The confinement suite, run twice (test/confinement.e2e.test.ts with the engines jailed, the default;
 * test/confinement-unjailed.e2e.test.ts with ENGINE_SANDBOX=off, where each engine's own settings and the
 * service's own checks are the only defence): a client's document cannot read the server's files or make the
 * server fetch URLs, and no error names a server path.
 *
 * Valid documents that link content from outside themselves (an absolute path on the server, a URL on a loopback
 * "beacon" server, a percent-encoded path, an RTF field, a playlist hidden behind an MP3's ID3 tag, a PDF external
 * stream) go through POST /api/v1/convert of a real server. Each job is done or fails cleanly; the beacon sees no
 * request; no output holds the bytes of a local file: images in output PDFs are extracted with `pdfimages -all`
 * and compared byte for byte, their text is searched for the marker, ZIP outputs are opened entry by entry, and
 * every output is searched for the local files' bytes and a marker text. Every error (a 4xx at submit, a failed
 * job) is checked for DATA_DIR, `/tmp/`, `/usr/` and stack frames.
 *
 * The local files: a JPEG and a text outside DATA_DIR, the same inside DATA_DIR (another tenant's files live
 * there), a PDF content stream printing the marker, and LibreOffice's own gallery image (a system file every jail
 * sees: only the engine's settings keep it out).
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { unzipSync } from 'fflate';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { download, getJson, startServer, submitConvert, waitForJob, type TestServer } from '../helpers.js';
import {
  docxWithAltChunkAndSubDocument,
  docxWithLinkedImage,
  hlsPlaylist,
  mp3HidingList,
  odpWithLinkedImage,
  odsWithLinkedImage,
  odtWithLinkedImage,
  odtWithLinkedSection,
  pdfWithExternalActions,
  pdfWithExternalContent,
  rtfWithLoadingFields,
  svgWithExternalRefs,
  xlsxWithExternalLink,
} from '../linked-documents.js';

const run = promisify(execFile);
const GALLERY_IMAGE = '/usr/lib/libreoffice/share/gallery/bigapple.gif';

export interface ConfinementSuiteOptions {
  /** The suite's title. */
  title: string;
  /** ENGINE_SANDBOX of the server under test. */
  sandbox: 'on' | 'off';
  /** Skip the whole suite (a jailed run where the kernel cannot make jails). */
  skip?: boolean;
}

export function confinementSuite({ title, sandbox, skip = false }: ConfinementSuiteOptions): void {
  const MARKER = `local-secret-${randomUUID()}`;
  let server: TestServer;
  let key: string;
  let beacon: http.Server;
  let beaconUrl: string;
  const beaconHits: string[] = [];
  let outside: string;
  /** The local files a document may point at, and the bytes none of them may leak. */
  const local = { jpeg: '', text: '', dataJpeg: '', dataText: '', content: '' };
  let leakable: Array<{ name: string; bytes: Buffer }> = [];

  describe.skipIf(skip)(title, () => {
    beforeAll(async () => {
      beacon = http.createServer((request, response) => {
        beaconHits.push(`${request.method} ${request.url}`);
        response.writeHead(200, { 'content-type': 'image/jpeg' }).end(leakable[0]?.bytes);
      });
      await new Promise<void>((resolve) => beacon.listen(0, '127.0.0.1', resolve));
      beaconUrl = `http://127.0.0.1:${(beacon.address() as { port: number }).port}`;

      server = await startServer(sandbox === 'off' ? { env: { ENGINE_SANDBOX: 'off' } } : {});
      key = await server.createKey('business');
      outside = await mkdtemp(path.join(os.tmpdir(), 'confinement-secrets-'));
      const jpeg = await sharp({
        create: { width: 48, height: 48, channels: 3, background: { r: 200, g: 30, b: 90 } },
      })
        .jpeg()
        .toBuffer();
      local.jpeg = path.join(outside, 'secret.jpg');
      local.text = path.join(outside, 'secret.txt');
      local.content = path.join(outside, 'content.txt');
      local.dataJpeg = path.join(server.dataDir, 'blobs', 'another-tenant.jpg');
      local.dataText = path.join(server.dataDir, 'blobs', 'another-tenant.txt');
      await mkdir(path.dirname(local.dataJpeg), { recursive: true });
      await Promise.all([
        writeFile(local.jpeg, jpeg),
        writeFile(local.text, `${MARKER}\n`),
        // A page content stream: a PDF that reads it prints the marker.
        writeFile(local.content, `BT /F1 18 Tf 72 700 Td (${MARKER}) Tj ET\n`),
        writeFile(local.dataJpeg, jpeg),
        writeFile(local.dataText, `${MARKER}\n`),
      ]);
      leakable = [
        { name: 'the local JPEG', bytes: jpeg },
        { name: 'the LibreOffice gallery image', bytes: await readFile(GALLERY_IMAGE) },
      ];
    }, 120_000);

    afterAll(async () => {
      await server?.close();
      beacon?.close();
      if (outside) await rm(outside, { recursive: true, force: true });
    });

    const fileUrl = (file: string) => `file://${file}`;

    /** What a case's output may not hold: no local file's bytes (whole or as an image of a PDF), no marker text. */
    async function expectNoLocalBytes(output: Buffer, filename: string, password?: string): Promise<void> {
      const containers = [output];
      if (output.subarray(0, 2).toString('latin1') === 'PK')
        containers.push(...Object.values(unzipSync(new Uint8Array(output))).map((entry) => Buffer.from(entry)));
      for (const bytes of containers) {
        expect(bytes.includes(MARKER), `${filename} holds the marker text of a local file`).toBe(false);
        for (const { name, bytes: secret } of leakable)
          expect(bytes.includes(secret), `${filename} holds ${name}`).toBe(false);
      }
      if (output.subarray(0, 5).toString('latin1') !== '%PDF-') return;
      const dir = await mkdtemp(path.join(os.tmpdir(), 'confinement-images-'));
      try {
        const pdf = path.join(dir, 'out.pdf');
        await writeFile(pdf, output);
        const passwordArgs = password ? ['-upw', password] : [];
        await run('pdfimages', ['-all', ...passwordArgs, pdf, path.join(dir, 'img')]);
        for (const image of (await readdir(dir)).filter((name) => name.startsWith('img'))) {
          const bytes = await readFile(path.join(dir, image));
          for (const { name, bytes: secret } of leakable)
            expect(bytes.equals(secret), `${filename}: image ${image} is ${name}`).toBe(false);
        }
        // Text a PDF drew from a local file (compressed in the file, so only extraction shows it).
        const { stdout: text } = await run('pdftotext', [...passwordArgs, pdf, '-']);
        expect(text.includes(MARKER), `${filename} prints the marker text of a local file`).toBe(false);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    }

    /** Images in a PDF, from `pdfimages -list` (rows after its two header lines). */
    async function pdfImageCount(pdf: Buffer): Promise<number> {
      const dir = await mkdtemp(path.join(os.tmpdir(), 'confinement-list-'));
      try {
        await writeFile(path.join(dir, 'out.pdf'), pdf);
        const { stdout } = await run('pdfimages', ['-list', path.join(dir, 'out.pdf')]);
        return stdout.trim().split('\n').length - 2;
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    }

    /** An error a client reads: no server path (DATA_DIR, /tmp/, /usr/) and no stack frame. */
    function expectClientSafe(error: string, where: string): void {
      expect(error, `${where}: error names DATA_DIR`).not.toContain(server.dataDir);
      expect(error, `${where}: error names a server path`).not.toMatch(/\/tmp\/|\/usr\//);
      expect(error, `${where}: error shows a stack frame`).not.toMatch(/\n\s+at |\bat [\w.<>]+ \(/);
    }

    interface Outcome {
      /** 'refused': a 4xx at submit; 'failed': a failed job with an error; 'done': an output. */
      kind: 'refused' | 'failed' | 'done';
      output?: Buffer;
      detail: string;
    }

    /** Submit, wait, download: the case ends one of the three clean ways, and the beacon heard nothing. */
    async function convert(name: string, data: Buffer | string, fields: Record<string, string>): Promise<Outcome> {
      const before = beaconHits.length;
      const where = `${name} -> ${JSON.stringify(fields)}`;
      const submitted = await submitConvert(server.url, key, { name, data }, fields);
      let outcome: Outcome;
      if (submitted.status !== 200) {
        expect(submitted.status, JSON.stringify(submitted.body)).toBeGreaterThanOrEqual(400);
        expect(submitted.status).toBeLessThan(500);
        expect(submitted.body.error).toEqual(expect.any(String));
        expectClientSafe(submitted.body.error, where);
        outcome = { kind: 'refused', detail: submitted.body.error };
      } else {
        const job = await waitForJob(server.url, key, submitted.body.jobId, 180_000);
        if (job.status === 'failed') {
          expect(job.error).toEqual(expect.any(String));
          expectClientSafe(job.error!, where);
          expect(job.error, `${where}: an unexpected exception`).not.toMatch(/internal error/);
          outcome = { kind: 'failed', detail: job.error! };
        } else {
          const got = await download(job.downloadUrl!);
          expect(got.status).toBe(200);
          await expectNoLocalBytes(got.data, where, fields.password);
          outcome = { kind: 'done', output: got.data, detail: '' };
        }
      }
      expect(beaconHits.slice(before), `${where} reached the beacon`).toEqual([]);
      return outcome;
    }

    it('/readyz reports the confinement', async () => {
      const { body } = await getJson(`${server.url}/readyz`, undefined);
      expect(body.confinement).toEqual(sandbox === 'on' ? { mode: 'bwrap', working: true } : { mode: 'off' });
    });

    describe('ODT and DOCX with a linked image, by absolute path and by URL', () => {
      const targets = () => [
        { label: 'a local file outside DATA_DIR', href: fileUrl(local.jpeg) },
        { label: "another tenant's file in DATA_DIR", href: fileUrl(local.dataJpeg) },
        { label: 'a system file every jail sees', href: fileUrl(GALLERY_IMAGE) },
        { label: 'the beacon', href: `${beaconUrl}/linked.jpg` },
      ];
      for (const [kind, build, outputs] of [
        ['odt', odtWithLinkedImage, ['pdf', 'docx', 'txt', 'epub']],
        ['docx', docxWithLinkedImage, ['pdf', 'odt', 'txt', 'epub']],
      ] as const) {
        it(`${kind} to ${outputs.join(', ')}: converted, with no image from outside`, {
          timeout: 600_000,
        }, async () => {
          for (const { label, href } of targets()) {
            for (const to of outputs) {
              const outcome = await convert(`linked.${kind}`, build(href), { to });
              expect(outcome.kind, `${kind} linking ${label} -> ${to}: ${outcome.detail}`).toBe('done');
              // The document's only image is the linked one: an output PDF has none at all.
              if (to === 'pdf') expect(await pdfImageCount(outcome.output!), `${kind} linking ${label} -> pdf`).toBe(0);
              if (to === 'txt') expect(outcome.output!.toString('utf8')).toContain('Linked image below.');
            }
          }
        });
      }
    });

    it('an ODT image whose path is percent-encoded is not read, by pandoc (EPUB) or LibreOffice', {
      timeout: 600_000,
    }, async () => {
      const encoded = (file: string) => encodeURIComponent(file);
      for (const href of [
        encoded(local.jpeg),
        encoded(local.dataJpeg),
        encoded(GALLERY_IMAGE),
        encoded('/proc/self/mountinfo'),
        encoded('/etc/ld.so.conf'),
        `..%2F..%2F..%2F..%2F..%2F..%2F..%2F..${encoded(GALLERY_IMAGE)}`,
      ]) {
        for (const to of ['epub', 'pdf', 'docx']) {
          const outcome = await convert('encoded.odt', odtWithLinkedImage(href), { to });
          expect(outcome.kind, `${href} -> ${to}: ${outcome.detail}`).toBe('done');
          if (to === 'epub') {
            const entries = Object.keys(unzipSync(new Uint8Array(outcome.output!)));
            expect(
              entries.filter((entry) => entry.includes('media/')),
              `${href} -> epub`,
            ).toEqual([]);
          }
          if (to === 'pdf') expect(await pdfImageCount(outcome.output!), `${href} -> pdf`).toBe(0);
        }
      }
    });

    it('an ODS or ODP picture linked by path or URL is not loaded', { timeout: 600_000 }, async () => {
      const hrefs = [fileUrl(local.jpeg), fileUrl(local.dataJpeg), fileUrl(GALLERY_IMAGE), `${beaconUrl}/linked.jpg`];
      for (const [kind, build, outputs, text] of [
        ['ods', odsWithLinkedImage, ['pdf', 'xlsx', 'csv'], 'Linked image sheet'],
        ['odp', odpWithLinkedImage, ['pdf', 'pptx'], 'Linked image slide'],
      ] as const) {
        for (const href of hrefs) {
          for (const to of outputs) {
            const outcome = await convert(`linked.${kind}`, build(href), { to });
            expect(outcome.kind, `${kind} linking ${href} -> ${to}: ${outcome.detail}`).toBe('done');
            if (to === 'pdf') {
              expect(await pdfImageCount(outcome.output!), `${kind} linking ${href} -> pdf`).toBe(0);
              const dir = await mkdtemp(path.join(os.tmpdir(), 'confinement-text-'));
              try {
                await writeFile(path.join(dir, 'out.pdf'), outcome.output!);
                expect((await run('pdftotext', [path.join(dir, 'out.pdf'), '-'])).stdout).toContain(text);
              } finally {
                await rm(dir, { recursive: true, force: true });
              }
            }
          }
        }
      }
    });

    it('an RTF INCLUDEPICTURE or INCLUDETEXT field pulls in nothing', { timeout: 600_000 }, async () => {
      for (const [picture, text] of [
        [local.jpeg, local.text],
        [local.dataJpeg, local.dataText],
        [GALLERY_IMAGE, local.text],
        [`${beaconUrl}/field.jpg`, `${beaconUrl}/field.txt`],
      ] as const) {
        for (const to of ['pdf', 'docx', 'odt']) {
          const outcome = await convert('fields.rtf', rtfWithLoadingFields(picture, text), { to });
          expect(outcome.kind, `${picture} -> ${to}: ${outcome.detail}`).toBe('done');
          if (to === 'pdf') expect(await pdfImageCount(outcome.output!), `${picture} -> pdf`).toBe(0);
        }
      }
    });

    it('an ODT linked section and an XLSX external link pull in nothing', { timeout: 300_000 }, async () => {
      for (const href of [fileUrl(local.text), fileUrl(local.dataText), `${beaconUrl}/section.txt`]) {
        for (const to of ['pdf', 'docx', 'txt']) {
          const outcome = await convert('section.odt', odtWithLinkedSection(href), { to });
          expect(outcome.kind, outcome.detail).toBe('done');
        }
      }
      for (const href of [fileUrl(local.text), `${beaconUrl}/book.xlsx`]) {
        for (const to of ['pdf', 'ods']) {
          const outcome = await convert('linked.xlsx', xlsxWithExternalLink(href), { to });
          expect(outcome.kind, outcome.detail).toBe('done');
        }
      }
    });

    it('a DOCX altChunk and subdocument pointing outside pull in nothing', { timeout: 300_000 }, async () => {
      for (const [chunk, sub] of [
        [fileUrl(local.text), fileUrl(local.dataText)],
        [`${beaconUrl}/chunk.html`, `${beaconUrl}/sub.docx`],
      ]) {
        for (const to of ['pdf', 'odt', 'txt']) {
          const outcome = await convert('chunks.docx', docxWithAltChunkAndSubDocument(chunk!, sub!), { to });
          expect(outcome.kind, outcome.detail).toBe('done');
        }
      }
    });

    // Refused at upload today (the content is no MP4 or MP3); ffmpeg's protocol whitelist and the
    // jail are the layers behind that (core/engines/ffmpeg.ts, and a unit test there).
    it('a "video" that is an HLS playlist pointing at the beacon or a local file fails cleanly', {
      timeout: 300_000,
    }, async () => {
      for (const target of [`${beaconUrl}/segment.ts`, local.jpeg, fileUrl(local.dataJpeg)]) {
        for (const [name, to] of [
          ['clip.mp4', 'webm'],
          ['clip.mp4', 'mp3'],
          ['song.mp3', 'wav'],
        ] as const) {
          const outcome = await convert(name, hlsPlaylist(target), { to });
          expect(outcome.kind, `${name} -> ${to}`).not.toBe('done');
        }
      }
    });

    it('an MP3 whose ID3 tag hides an ffconcat or HLS list is read as MP3: it fails, naming no path', {
      timeout: 300_000,
    }, async () => {
      const uploads = path.join(server.dataDir, 'blobs', 'uploads');
      const lists = [
        // Relative names resolve beside the upload, in DATA_DIR.
        `ffconcat version 1.0\nfile 'other-upload.mp3'\nfile '${local.jpeg}'\n`,
        `ffconcat version 1.0\nfile '${path.relative(uploads, local.dataJpeg)}'\n`,
        hlsPlaylist(GALLERY_IMAGE),
        hlsPlaylist(`${beaconUrl}/segment.ts`),
      ];
      for (const list of lists) {
        for (const to of ['wav', 'ogg']) {
          const outcome = await convert('song.mp3', mp3HidingList(list), { to });
          // Accepted as MP3 (as sniffing sees it), then failed by ffmpeg reading it as one.
          expect(outcome.kind, `${list.split('\n')[0]} -> ${to}: ${outcome.detail}`).toBe('failed');
          expect(outcome.detail, 'the error names no file the list held').not.toMatch(/other-upload|secret|tenant/);
        }
      }
    });

    it('an SVG with external hrefs renders without them', { timeout: 300_000 }, async () => {
      const svg = svgWithExternalRefs([
        fileUrl(local.jpeg),
        fileUrl(local.dataJpeg),
        fileUrl(GALLERY_IMAGE),
        `${beaconUrl}/image.png`,
        `${beaconUrl}/style.css`,
      ]);
      for (const to of ['png', 'pdf', 'webp']) {
        const outcome = await convert('linked.svg', svg, { to });
        expect(outcome.kind, outcome.detail).toBe('done');
      }
    });

    it('an HTML page reaching for local files and the beacon renders without them', { timeout: 300_000 }, async () => {
      const refs = [fileUrl(local.jpeg), fileUrl(local.dataJpeg), fileUrl(GALLERY_IMAGE), `${beaconUrl}/page.jpg`];
      const html =
        '<!doctype html><html><head><title>Reaching out</title>' +
        refs.map((ref) => `<link rel="stylesheet" href="${ref}.css">`).join('') +
        `</head><body><p>Reaching out</p>${refs.map((ref) => `<img src="${ref}">`).join('')}` +
        `<iframe src="${fileUrl(local.text)}"></iframe><iframe src="${fileUrl(local.dataText)}"></iframe>` +
        `<object data="${fileUrl(local.text)}"></object></body></html>`;
      const outcome = await convert('reaching.html', html, { to: 'pdf' });
      expect(outcome.kind, `html -> pdf: ${outcome.detail}`).toBe('done');
      // Every image is Chromium's one 14 x 16 broken-image icon, drawn where nothing could be loaded.
      const dir = await mkdtemp(path.join(os.tmpdir(), 'confinement-html-'));
      try {
        await writeFile(path.join(dir, 'out.pdf'), outcome.output!);
        const { stdout } = await run('pdfimages', ['-list', path.join(dir, 'out.pdf')]);
        const sizes = stdout
          .trim()
          .split('\n')
          .slice(2)
          .map((row) => row.trim().split(/\s+/).slice(3, 5).join('x'));
        expect(new Set(sizes), 'images other than the broken-image icon').toEqual(new Set(['14x16']));
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });

    it('a PDF page drawn from an external stream in the server`s temp folder prints nothing from it', {
      timeout: 300_000,
    }, async () => {
      const pdf = pdfWithExternalContent(local.content);
      const tools: Array<Record<string, string>> = [
        { to: 'pdf', op: 'compress-pdf' },
        { to: 'pdf', pdfa: '2b' },
        { to: 'pdf', op: 'ocr' },
        { to: 'pdf', op: 'pdf-to-text' },
      ];
      for (const fields of tools) {
        const outcome = await convert('external.pdf', pdf, fields);
        expect(outcome.kind, `${JSON.stringify(fields)}: ${outcome.detail}`).not.toBe('refused');
      }
    });

    it('a PDF whose links, JavaScript and launch actions point outside goes through every PDF tool', {
      timeout: 600_000,
    }, async () => {
      const pdf = pdfWithExternalActions(`${beaconUrl}/action`, local.text);
      const tools: Array<Record<string, string>> = [
        { to: 'pdf', op: 'rotate-pdf', angle: '90' },
        { to: 'pdf', op: 'split-pdf', split: '{"mode":"ranges","ranges":"1"}' },
        { to: 'pdf', op: 'extract-pages', pages: '1' },
        { to: 'pdf', op: 'protect-pdf', password: 'secret' },
        { to: 'pdf', op: 'compress-pdf' },
        { to: 'pdf', op: 'pdf-to-text' },
        { to: 'pdf', op: 'extract-images' },
        { to: 'pdf', op: 'repair-pdf' },
        { to: 'pdf', op: 'clean-metadata' },
        { to: 'pdf', op: 'remove-watermark' },
        { to: 'pdf', op: 'ocr' },
        { to: 'pdf', op: 'redact', redact: '["email"]' },
        { to: 'docx' },
        { to: 'png' },
        { to: 'txt' },
      ];
      const outcomes = [];
      for (const fields of tools) outcomes.push({ fields, outcome: await convert('actions.pdf', pdf, fields) });
      // Most tools take this valid PDF: a confinement that broke them would show here.
      expect(
        outcomes.filter(({ outcome }) => outcome.kind === 'done').length,
        JSON.stringify(outcomes.map((o) => [o.fields, o.outcome.kind, o.outcome.detail])),
      ).toBeGreaterThanOrEqual(10);
    });

    it('the beacon heard nothing from the whole suite', () => {
      expect(beaconHits).toEqual([]);
    });
  });
}
