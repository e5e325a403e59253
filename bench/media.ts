/**
 * Media service overhead (the media row of `npm run bench`, run alone with its detail): see
 * rows/media.ts. Prints medians, minimums (the least disturbed runs, steadier on a shared
 * machine) and their ratios (target < 1.10), with the load average.
 *
 *   npx tsx bench/media.ts [rounds=5] [mp4|webm]
 */
import os from 'node:os';
import { type MediaTarget, measureMedia } from './rows/media.js';
import { median } from './lib/stats.js';

const rounds = Number(process.argv[2] ?? 5);
const target = (process.argv[3] ?? 'mp4') as MediaTarget;
if (target !== 'mp4' && target !== 'webm') throw new Error('the target is mp4 or webm');
const loadAtStart = os
  .loadavg()
  .map((l) => l.toFixed(2))
  .join(' ');
const { warmup, times, serviceCpuMs } = await measureMedia(rounds, undefined, target);
const fmt = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const ratio = (service: number, direct: number) =>
  `${(service / direct).toFixed(3)} (overhead ${(((service - direct) / direct) * 100).toFixed(1)}%)`;
console.log(
  `media bench: 10 s 720p30 MOV -> ${target.toUpperCase()} (as video-convert encodes it), ${rounds} interleaved` +
    ` rounds, ` +
    `${os.availableParallelism()} cores`,
);
console.log(
  `  load average at start ${loadAtStart}, at end ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
console.log(
  `  warm-up          direct ${fmt(warmup.direct)}   plugin ${fmt(warmup.plugin)}   service ${fmt(warmup.service)}`,
);
const row = (label: string, values: number[]) =>
  console.log(
    `  ${label} median ${fmt(median(values))}   min ${fmt(Math.min(...values))}   runs ${values.map(fmt).join(', ')}`,
  );
row('direct ffmpeg   ', times.direct);
row('plugin alone    ', times.plugin);
row('service via HTTP', times.service);
console.log(
  `  server process CPU per job (HTTP, queue, plugin, client; excludes ffmpeg): median ` +
    `${median(serviceCpuMs).toFixed(0)} ms`,
);
console.log(
  `  ratio plugin/direct:  medians ${ratio(median(times.plugin), median(times.direct))}, minimums ` +
    `${ratio(Math.min(...times.plugin), Math.min(...times.direct))}`,
);
console.log(
  `  ratio service/direct: medians ${ratio(median(times.service), median(times.direct))}, minimums ` +
    `${ratio(Math.min(...times.service), Math.min(...times.direct))}; target < 1.10`,
);
