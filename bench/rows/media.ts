/**
 * Media service overhead: a 10 s 720p MOV converted to MP4, and to WEBM (VP9 + Opus), end to end through the HTTP
 * server (upload, queue, probe, ffmpeg, download) against the same ffmpeg command run directly on the same file, with
 * the plugin alone (runPlugin: probe + ffmpeg through the engine) in between to show where any overhead comes from.
 * The client submits with `Prefer: wait=60` (docs/API.md), answered as the job is stored done: a polling client adds
 * its own interval (the test kit's back-off polls at 1.6 s and 2.5 s after the submit, which hid a 2.0 s job until
 * 2.5 s; bench/NOTES.md, "Media service overhead"), through the rows' node:http client as the image and Chromium
 * rows (bench/lib/client.ts: the client shares the server's process, so its own cost is not counted as the
 * service's). Runs interleaved after one warm-up each (the order rotates per round, so drift in machine load falls
 * on every side). Target: service/direct at most 1.10.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { runPlugin } from '../../core/contract/testing/index.js';
import { runProcess } from '../../core/engines/process.js';
import { mediaPlugins } from '../../plugins/media/index.js';
import { videoConvertPlugin } from '../../plugins/media/video-convert/index.js';
import { startServer } from '../../test/helpers.js';
import { convertTimed } from '../lib/client.js';
import { ratioOf, type BenchRow } from '../lib/results.js';
import { speedTolerance } from '../lib/speed-tolerances.js';
import { spread } from '../lib/stats.js';

const SIDES = ['direct', 'plugin', 'service'] as const;
type Side = (typeof SIDES)[number];

export interface MediaTimes {
  warmup: Record<Side, number>;
  times: Record<Side, number[]>;
  /** CPU the bench process itself (HTTP, queue, plugin, client; not ffmpeg/ffprobe) spent per service job. */
  serviceCpuMs: number[];
}

const ffmpeg = (args: string[]) =>
  runProcess('ffmpeg', ['-nostdin', '-hide_banner', '-v', 'error', '-y', ...args], { timeoutMs: 600_000 });

/** What video-convert runs for each target (shared/encoders.ts VIDEO_ENCODERS), as direct ffmpeg options. */
const DIRECT_OPTIONS = {
  mp4: [
    '-c:v',
    'libx264',
    '-preset',
    'veryfast',
    '-crf',
    '23',
    '-pix_fmt',
    'yuv420p',
    '-vf',
    'scale=trunc(iw/2)*2:trunc(ih/2)*2',
    '-movflags',
    '+faststart',
    '-c:a',
    'aac',
    '-b:a',
    '160k',
  ],
  webm: [
    '-c:v',
    'libvpx-vp9',
    '-crf',
    '32',
    '-b:v',
    '0',
    '-deadline',
    'realtime',
    '-cpu-used',
    '8',
    '-row-mt',
    '1',
    '-pix_fmt',
    'yuv420p',
    '-vf',
    'scale=trunc(iw/2)*2:trunc(ih/2)*2',
    '-c:a',
    'libopus',
    '-b:a',
    '128k',
  ],
} as const;

export type MediaTarget = keyof typeof DIRECT_OPTIONS;

export async function measureMedia(
  rounds: number,
  progress: (message: string) => void = () => undefined,
  target: MediaTarget = 'mp4',
): Promise<MediaTimes> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'bench-media-'));
  const clip = path.join(dir, 'clip.mov');
  // 10 s of 720p30 test pattern with a stereo tone, H.264 + AAC in MOV.
  await ffmpeg([
    '-f',
    'lavfi',
    '-i',
    'testsrc2=size=1280x720:rate=30:duration=10',
    '-f',
    'lavfi',
    '-i',
    'sine=frequency=440:duration=10',
    '-ac',
    '2',
    '-c:v',
    'libx264',
    '-preset',
    'veryfast',
    '-pix_fmt',
    'yuv420p',
    '-c:a',
    'aac',
    clip,
  ]);
  const directArgs = (output: string) => ['-i', clip, '-map', '0:0', '-map', '0:1', ...DIRECT_OPTIONS[target], output];
  const server = await startServer({ plugins: mediaPlugins });
  const upload = { name: path.basename(clip), data: await readFile(clip) };
  const timed = async (fn: () => Promise<unknown>) => {
    const started = performance.now();
    await fn();
    return performance.now() - started;
  };
  const serviceCpuMs: number[] = [];
  const runners: Record<Side, () => Promise<number>> = {
    direct: () => timed(() => ffmpeg(directArgs(path.join(dir, `direct.${target}`)))),
    plugin: () =>
      timed(() =>
        runPlugin(videoConvertPlugin, [{ path: clip, format: 'mov' }], {}, { target }).then((run) =>
          rm(run.workDir, { recursive: true }),
        ),
      ),
    service: async () => {
      const key = await server.createKey('business');
      const cpuBefore = process.cpuUsage();
      const ms = await timed(() => convertTimed(server.url, key, upload, { to: target }, 120_000, { preferWaitS: 60 }));
      const cpu = process.cpuUsage(cpuBefore);
      serviceCpuMs.push((cpu.user + cpu.system) / 1000);
      return ms;
    },
  };
  try {
    const warmup = { direct: await runners.direct(), plugin: await runners.plugin(), service: await runners.service() };
    const times: Record<Side, number[]> = { direct: [], plugin: [], service: [] };
    for (let round = 0; round < rounds; round++) {
      const order = SIDES.map((_, i) => SIDES[(i + round) % SIDES.length]!);
      for (const side of order) times[side].push(await runners[side]());
      progress(
        `round ${round + 1}/${rounds}: ` +
          `${SIDES.map((s) => `${s} ${(times[s].at(-1)! / 1000).toFixed(2)} s`).join(', ')}`,
      );
    }
    return { warmup, times, serviceCpuMs: serviceCpuMs.slice(1) };
  } finally {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
}

export const mediaRow: BenchRow = {
  id: 'media',
  title: 'media: 10 s 720p MOV -> MP4 and -> WEBM through the service vs ffmpeg directly',
  minutes: { full: 2.5, quick: 1.2 },
  async run({ quick, progress }) {
    const rounds = quick ? 1 : 5;
    const measurements = [];
    for (const target of ['mp4', 'webm'] as const) {
      progress(`MOV -> ${target.toUpperCase()}`);
      const { times } = await measureMedia(rounds, progress, target);
      const service = spread(times.service.map((ms) => ms / 1000));
      const direct = spread(times.direct.map((ms) => ms / 1000));
      const plugin = spread(times.plugin.map((ms) => ms / 1000));
      const ratio = ratioOf(service.median, direct.median);
      measurements.push({
        row: 'media',
        metric: `10 s 720p MOV -> ${target.toUpperCase()} through the service`,
        unit: 's',
        value: service,
        over: `${rounds} rounds`,
        baseline: { label: 'ffmpeg directly', value: direct.median },
        ratio,
        target: { text: 'ratio ≤ 1.10', met: ratio <= 1.1 },
        ratchet: {
          id: `speed.media.${target}`,
          better: 'lower' as const,
          tolerance: speedTolerance(`speed.media.${target}`),
        },
        note:
          `plugin alone ${plugin.median.toFixed(2)} s; ratio of minimums (the least disturbed runs) ` +
          `${ratioOf(service.min, direct.min).toFixed(3)}`,
      });
    }
    return measurements;
  },
};
