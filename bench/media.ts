/**
 * Media service overhead: a 10 s 720p MOV converted to MP4 end to end through the HTTP server
 * (upload, queue, probe, ffmpeg, download) against the same ffmpeg command run directly on the
 * same file, with the plugin alone (runPlugin: probe + ffmpeg through the engine) in between to
 * show where any overhead comes from. Runs interleaved after one warm-up each; prints medians, minimums (the least disturbed
 * runs, steadier on a shared machine) and their ratios (target < 1.10), with the load average.
 *
 *   npx tsx bench/media.ts [rounds=5]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { runPlugin } from '../core/contract/testing.js';
import { runProcess } from '../core/engines/process.js';
import { mediaPlugins } from '../plugins/media/index.js';
import { videoConvertPlugin } from '../plugins/media/video-convert/index.js';
import { convertAndDownload, startServer } from '../test/helpers.js';

const rounds = Number(process.argv[2] ?? 5);
const loadAtStart = os.loadavg().map((l) => l.toFixed(2)).join(' ');
const dir = await mkdtemp(path.join(os.tmpdir(), 'bench-media-'));
const clip = path.join(dir, 'clip.mov');

const ffmpeg = (args: string[]) => runProcess('ffmpeg', ['-nostdin', '-hide_banner', '-v', 'error', '-y', ...args], { timeoutMs: 600_000 });

// 10 s of 720p30 test pattern with a stereo tone, H.264 + AAC in MOV.
await ffmpeg([
  '-f', 'lavfi', '-i', 'testsrc2=size=1280x720:rate=30:duration=10',
  '-f', 'lavfi', '-i', 'sine=frequency=440:duration=10',
  '-ac', '2', '-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', clip,
]);

// What video-convert runs for mp4 (shared/encoders.ts VIDEO_ENCODERS.mp4), as one direct command.
const directArgs = (output: string) => [
  '-i', clip, '-map', '0:0', '-map', '0:1',
  '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '23', '-pix_fmt', 'yuv420p', '-vf', 'scale=trunc(iw/2)*2:trunc(ih/2)*2', '-movflags', '+faststart',
  '-c:a', 'aac', '-b:a', '160k', output,
];

const server = await startServer({ plugins: mediaPlugins });

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}
const direct = () => timed(() => ffmpeg(directArgs(path.join(dir, 'direct.mp4'))));
const plugin = () => timed(() => runPlugin(videoConvertPlugin, [{ path: clip, format: 'mov' }], {}, { target: 'mp4' }).then((run) => rm(run.workDir, { recursive: true })));
/** CPU the server process itself (HTTP, queue, plugin; not ffmpeg/ffprobe) spent per job: insensitive to machine load. */
const serviceCpuMs: number[] = [];
const service = async () => {
  // A Business key per run: the client polls every 100 ms, and a Pro key may make only 120 requests a minute.
  const key = await server.createKey('business');
  const cpuBefore = process.cpuUsage();
  const ms = await timed(() => convertAndDownload(server.url, key, clip, { to: 'mp4' }, 600_000));
  const cpu = process.cpuUsage(cpuBefore);
  serviceCpuMs.push((cpu.user + cpu.system) / 1000);
  return ms;
};
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

try {
  const runners = { direct, plugin, service };
  const warmup = { direct: await direct(), plugin: await plugin(), service: await service() };
  const times = { direct: [] as number[], plugin: [] as number[], service: [] as number[] };
  for (let round = 0; round < rounds; round++) {
    // Rotate which goes first, so drift in machine load falls on every side.
    const order = (['direct', 'plugin', 'service'] as const).map((_, i, all) => all[(i + round) % all.length]!);
    for (const which of order) times[which].push(await runners[which]());
  }
  const fmt = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  const ratio = (service: number, direct: number) => `${(service / direct).toFixed(3)} (overhead ${(((service - direct) / direct) * 100).toFixed(1)}%)`;
  console.log(`media bench: 10 s 720p30 MOV -> MP4 (x264 veryfast crf 23 + AAC 160k), ${rounds} interleaved rounds, ${os.availableParallelism()} cores`);
  console.log(`  load average at start ${loadAtStart}, at end ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  console.log(`  warm-up          direct ${fmt(warmup.direct)}   plugin ${fmt(warmup.plugin)}   service ${fmt(warmup.service)}`);
  const row = (label: string, values: number[]) => console.log(`  ${label} median ${fmt(median(values))}   min ${fmt(Math.min(...values))}   runs ${values.map(fmt).join(', ')}`);
  row('direct ffmpeg   ', times.direct);
  row('plugin alone    ', times.plugin);
  row('service via HTTP', times.service);
  console.log(`  server process CPU per job (HTTP, queue, plugin, client; excludes ffmpeg): median ${median(serviceCpuMs.slice(1)).toFixed(0)} ms`);
  console.log(`  ratio plugin/direct:  medians ${ratio(median(times.plugin), median(times.direct))}, minimums ${ratio(Math.min(...times.plugin), Math.min(...times.direct))}`);
  console.log(`  ratio service/direct: medians ${ratio(median(times.service), median(times.direct))}, minimums ${ratio(Math.min(...times.service), Math.min(...times.direct))}; target < 1.10`);
} finally {
  await server.close();
  await rm(dir, { recursive: true, force: true });
}
