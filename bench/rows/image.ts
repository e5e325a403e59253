/**
 * Image overhead: a tiny PNG -> WEBP end to end through the HTTP API (accept -> done ->
 * download) against the same conversion by sharp in this process, alternating one of each.
 * Target: at most 30 ms added at p50.
 */
import sharp from 'sharp';
import { POLL_MS, convertTimed } from '../lib/client.js';
import { ratioOf, type BenchRow } from '../lib/results.js';
import { startBenchServer } from '../lib/server.js';
import { speedTolerance } from '../lib/speed-tolerances.js';
import { median, spread } from '../lib/stats.js';

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
      const viaApi = () => convertTimed(server.url, server.key, { name: 'tiny.png', data: png }, { to: 'webp' });
      const inProcess = async () => {
        const started = performance.now();
        await sharp(png).webp().toBuffer();
        return performance.now() - started;
      };
      for (let i = 0; i < 5; i++) await Promise.all([viaApi(), inProcess()]); // warm both paths
      progress(`${samples} conversions each way, alternating`);
      const api: number[] = [];
      const accepted: number[] = [];
      const direct: number[] = [];
      for (let i = 0; i < samples; i++) {
        const timing = await viaApi();
        api.push(timing.totalMs);
        accepted.push(timing.acceptMs);
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
          target: { text: '≤ 30 ms added at p50', met: added <= 30 },
          ratchet: { id: 'speed.image.tiny', better: 'lower', tolerance: speedTolerance('speed.image.tiny') },
          note:
            `${added.toFixed(1)} ms added at p50, of which upload to accepted ${median(accepted).toFixed(1)} ms; ` +
            `the rest is queue, sandbox run, polling (every ${POLL_MS} ms: ${POLL_MS / 2} ms on average) and download`,
        },
      ];
    } finally {
      await server.stop();
    }
  },
};
