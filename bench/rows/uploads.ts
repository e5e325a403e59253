/**
 * Uploads: 1 GiB streamed through POST /api/v1/convert into the blob store (timed until the
 * job is accepted), with the server process's RSS sampled from /proc every 50 ms, against a
 * plain streamed copy of the same file on the same disk in the same run, alternating. The file
 * is a real one-second MP4 padded to size (content sniffing sees a video; ffmpeg converts the
 * clip and ignores the padding), so the upload is accepted on the Enterprise plan's 5 GB limit.
 * Targets: RSS at most 150 MB, at least 200 MB/s.
 */
import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { open, readFile, rm, stat } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { runProcess } from '../../core/engines/process.js';
import { authHeaders, getJson } from '../../test/helpers.js';
import { ratioOf, type BenchRow } from '../lib/results.js';
import { benchDataDir, rssBytes, startBenchServer, startTrivialServer } from '../lib/server.js';
import { speedTolerance } from '../lib/speed-tolerances.js';
import { spread } from '../lib/stats.js';

const MB = 1_000_000;
const CHUNK = 8 * 2 ** 20;

/** A one-second MP4 followed by zeros up to `bytes`. */
async function paddedVideo(file: string, bytes: number): Promise<void> {
  const clip = `${file}.clip.mp4`;
  await runProcess(
    'ffmpeg',
    [
      '-nostdin',
      '-v',
      'error',
      '-y',
      '-f',
      'lavfi',
      '-i',
      'testsrc2=size=320x240:rate=10:duration=1',
      '-c:v',
      'libx264',
      '-pix_fmt',
      'yuv420p',
      '-movflags',
      '+faststart',
      clip,
    ],
    { timeoutMs: 60_000 },
  );
  const head = await readFile(clip);
  await rm(clip);
  const handle = await open(file, 'w');
  try {
    await handle.write(head);
    const zeros = Buffer.alloc(CHUNK);
    for (let written = head.length; written < bytes; ) {
      const n = Math.min(CHUNK, bytes - written);
      await handle.write(zeros, 0, n);
      written += n;
    }
  } finally {
    await handle.close();
  }
}

export const uploadsRow: BenchRow = {
  id: 'uploads',
  title: 'uploads: 1 GiB through POST /api/v1/convert to the blob store vs a plain disk copy',
  minutes: { full: 2, quick: 0.4 },
  async run({ quick, progress }) {
    const bytes = quick ? 128 * 2 ** 20 : 2 ** 30;
    const runs = quick ? 1 : 3;
    const scratch = await benchDataDir('uploads-source');
    const source = path.join(scratch, 'big.mp4');
    const server = await startBenchServer('uploads');
    try {
      progress(`writing a ${(bytes / 2 ** 20).toFixed(0)} MiB source file`);
      await paddedVideo(source, bytes);
      const size = (await stat(source)).size;
      const idleRss = await rssBytes(server.pid);

      const diskCopy = async () => {
        const target = path.join(server.dataDir, 'plain-copy.bin'); // the blob store's disk
        const started = performance.now();
        await pipeline(createReadStream(source, { highWaterMark: 1 << 20 }), createWriteStream(target));
        const seconds = (performance.now() - started) / 1000;
        await rm(target);
        return size / MB / seconds;
      };
      /**
       * POST the file as the convert form over node:http, streamed from disk in 1 MiB reads (fetch
       * with FormData sends a file several times slower, which would cap the measurement); seconds until the answer.
       */
      const post = async (url: string, headers: Record<string, string>) => {
        const boundary = `bench${randomUUID().replace(/-/g, '')}`;
        const head = Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; ` +
            `name="to"\r\n\r\nwebm\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; ` +
            `filename="big.mp4"\r\nContent-Type: video/mp4\r\n\r\n`,
        );
        const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
        const started = performance.now();
        const { status, text } = await new Promise<{ status: number; text: string }>((resolve, reject) => {
          const req = http.request(
            url,
            {
              method: 'POST',
              headers: {
                ...headers,
                'content-type': `multipart/form-data; boundary=${boundary}`,
                'content-length': String(head.length + size + tail.length),
              },
            },
            (res) => {
              let text = '';
              res.setEncoding('utf8');
              res.on('data', (chunk: string) => (text += chunk));
              res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
              res.on('error', reject);
            },
          );
          req.on('error', reject);
          req.write(head);
          const file = createReadStream(source, { highWaterMark: 1 << 20 });
          file.on('error', reject);
          file.on('end', () => req.end(tail));
          file.pipe(req, { end: false });
        });
        if (status !== 200) throw new Error(`${url} answered ${status}: ${text.slice(0, 300)}`);
        return { seconds: (performance.now() - started) / 1000, jobId: (JSON.parse(text) as { jobId?: string }).jobId };
      };
      const upload = async () => {
        let peak = await rssBytes(server.pid);
        let sampling = true;
        const sampler = (async () => {
          while (sampling) {
            peak = Math.max(peak, await rssBytes(server.pid).catch(() => 0));
            await sleep(50);
          }
        })();
        const { seconds, jobId } = await post(`${server.url}/api/v1/convert`, authHeaders(server.key)).finally(
          () => (sampling = false),
        );
        await sampler;
        // Let the job finish (it converts the one-second clip) so its disk work stays out of the next measurement.
        let jobStatus = 'unfinished after 300 s';
        for (const deadline = Date.now() + 300_000; Date.now() < deadline; await sleep(250)) {
          const { body: job } = await getJson(`${server.url}/api/v1/jobs/${jobId}`, server.key);
          if (job.status === 'done' || job.status === 'failed') {
            jobStatus = job.status === 'done' ? 'done' : `failed (${job.error})`;
            break;
          }
        }
        return { mbPerSecond: size / MB / seconds, peakMb: peak / MB, jobStatus };
      };

      await diskCopy(); // warm the page cache for both sides
      const disk: number[] = [];
      const uploads: Array<{ mbPerSecond: number; peakMb: number; jobStatus: string }> = [];
      for (let i = 0; i < runs; i++) {
        disk.push(await diskCopy());
        uploads.push(await upload());
        progress(
          `run ${i + 1}/${runs}: upload ${uploads.at(-1)!.mbPerSecond.toFixed(0)} MB/s, peak server RSS ` +
            `${uploads.at(-1)!.peakMb.toFixed(0)} MB; disk copy ${disk.at(-1)!.toFixed(0)} MB/s`,
        );
      }
      // What this client can send at all, to a route that discards the body: the ceiling of the measurement.
      const sink = await startTrivialServer();
      const sinkMbPerSecond = await post(`${sink.url}/sink`, {})
        .then(({ seconds }) => size / MB / seconds)
        .finally(() => sink.stop());
      progress(`the same upload to a Fastify route that discards it: ${sinkMbPerSecond.toFixed(0)} MB/s`);
      const speed = spread(uploads.map((u) => u.mbPerSecond));
      const rss = spread(uploads.map((u) => u.peakMb));
      const diskMedian = spread(disk).median;
      const label = `${(size / 2 ** 20).toFixed(0)} MiB`;
      return [
        {
          row: 'uploads',
          metric: `upload speed, ${label} to accepted`,
          unit: 'MB/s',
          value: speed,
          over: `${runs} uploads`,
          baseline: { label: 'plain disk copy', value: diskMedian },
          ratio: ratioOf(speed.median, diskMedian),
          target: { text: '≥ 200 MB/s', met: speed.median >= 200 },
          ratchet: { id: 'speed.uploads.speed', better: 'higher', tolerance: speedTolerance('speed.uploads.speed') },
          note:
            `the same client to a Fastify route that discards the body: ${sinkMbPerSecond.toFixed(0)} MB/s (the ` +
            `client's own ceiling); the accepted jobs afterwards: ${uploads.map((u) => u.jobStatus).join(', ')}`,
        },
        {
          // The API process reads manifests only; its engines' libraries load in sandboxes.
          row: 'uploads',
          metric: 'server idle RSS (started, every standard manifest registered)',
          unit: 'MB',
          value: spread([idleRss / MB]),
          over: 'one sample before the uploads',
          target: { text: '≤ 150 MB (the peak target; idle leaves room for the upload)', met: idleRss / MB <= 150 },
          note: 'the server process alone; sandbox processes, which load sharp, pdfjs and exceljs, are not counted',
        },
        {
          row: 'uploads',
          metric: `peak server RSS during a ${label} upload`,
          unit: 'MB',
          value: rss,
          over: `${runs} uploads`,
          baseline: { label: 'server idle', value: idleRss / MB },
          ratio: ratioOf(rss.median, idleRss / MB),
          target: { text: '≤ 150 MB', met: rss.max <= 150 },
          note:
            'the server process alone (its sandbox processes do not take part in uploads); MB = 10^6 bytes; met ' +
            'on the highest peak',
        },
        {
          // What streaming is about: the upload must not grow the process by anything like its size.
          row: 'uploads',
          metric: `server RSS added by a ${label} upload`,
          unit: 'MB',
          value: spread(uploads.map((u) => u.peakMb - idleRss / MB)),
          over: `${runs} uploads`,
          note: `peak minus the idle server's ${(idleRss / MB).toFixed(0)} MB`,
        },
      ];
    } finally {
      await server.stop();
      await rm(scratch, { recursive: true, force: true });
    }
  },
};
