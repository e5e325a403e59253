/**
 * Image overhead: a tiny PNG -> WEBP end to end through the HTTP API against the same conversion by sharp in this
 * process, alternating one of each. The client wants the result as soon as it exists, so it submits with
 * `Prefer: wait` (docs/API.md: answered once the job is stored done, with its link; no status polls) and downloads.
 * Target: at most 10 ms added at p50.
 */
import sharp from 'sharp';
import { convertTimed } from '../lib/client.js';
import { ratioOf, type BenchRow } from '../lib/results.js';
import { startBenchServer } from '../lib/server.js';
import { speedTolerance } from '../lib/speed-tolerances.js';
import { median, spread } from '../lib/stats.js';

/** What the HTTP path may add to sharp's own time for a tiny image, at p50. */
const TARGET_ADDED_MS = 10;

export const imageRow: BenchRow = {
  id: 'image',
  title: 'image overhead: tiny PNG -> WEBP over HTTP vs sharp in-process',
  minutes: { full: 0.7, quick: 0.3 },
  async run({ quick, progress }) {
    const samples = quick ? 30 : 300;
    const png = await sharp({ create: { width: 64, height: 64, channels: 3, background: { r: 200, g: 80, b: 40 } } })
      .png()
      .toBuffer();
    const server = await startBenchServer('image');
    try {
      const viaApi = () =>
        convertTimed(server.url, server.key, { name: 'tiny.png', data: png }, { to: 'webp' }, 60_000, {
          preferWaitS: 60,
        });
      const inProcess = async () => {
        const started = performance.now();
        await sharp(png).webp().toBuffer();
        return performance.now() - started;
      };
      for (let i = 0; i < 5; i++) await Promise.all([viaApi(), inProcess()]); // warm both paths
      progress(`${samples} conversions each way, alternating`);
      const api: number[] = [];
      const answered: number[] = [];
      const direct: number[] = [];
      for (let i = 0; i < samples; i++) {
        const timing = await viaApi();
        api.push(timing.totalMs);
        answered.push(timing.acceptMs);
        direct.push(await inProcess());
      }
      const e2e = spread(api);
      const baseline = spread(direct).median;
      const added = e2e.median - baseline;
      progress(
        `p50 ${e2e.median.toFixed(1)} ms over HTTP, ${baseline.toFixed(1)} ms in-process: ${added.toFixed(1)} ms added`,
      );
      return [
        {
          row: 'image',
          metric: 'end-to-end latency, tiny PNG -> WEBP',
          unit: 'ms',
          value: e2e,
          over: `${e2e.n} conversions`,
          baseline: { label: 'sharp in-process', value: baseline },
          ratio: ratioOf(e2e.median, baseline),
          target: { text: `≤ ${TARGET_ADDED_MS} ms added at p50`, met: added <= TARGET_ADDED_MS },
          ratchet: { id: 'speed.image.tiny', better: 'lower', tolerance: speedTolerance('speed.image.tiny') },
          note:
            `${added.toFixed(1)} ms added at p50; the submit (Prefer: wait: upload, accept, queue, sandbox run, ` +
            `stored done) answered at ${median(answered).toFixed(1)} ms, the rest is the download; both include the ` +
            `client's own request building and reading (bench/NOTES.md, "A tiny image end to end")`,
        },
      ];
    } finally {
      await server.stop();
    }
  },
};
