/**
 * Isolation (the isolation row of `npm run bench`, run alone with its detail): see
 * rows/isolation.ts. Prints p50 / p99 idle and under load, their ratios, and the target
 * (p99 at most 50 ms under load).
 *
 *   npx tsx bench/isolation.ts [requests=400]
 */
import os from 'node:os';
import { measureIsolation } from './rows/isolation.js';
import { percentile } from './lib/stats.js';

const requests = Number(process.argv[2] ?? 400);
const { idle, loaded, heavyAtEnd } = await measureIsolation({ requests, rounds: 1 });
const row = (name: string, a: number[], b: number[]) => {
  const p99 = percentile(b, 99);
  return (
    `| ${name} | ${percentile(a, 50).toFixed(2)} / ${percentile(a, 99).toFixed(2)} | ` +
    `${percentile(b, 50).toFixed(2)} / ${p99.toFixed(2)} | ${(percentile(b, 50) / percentile(a, 50)).toFixed(2)} / ` +
    `${(p99 / percentile(a, 99)).toFixed(2)} | ${p99 <= 50 ? 'met' : 'MISSED'} |`
  );
};
console.log(
  `isolation bench: ${requests} sequential requests each; load average ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}; heavy runs still active at the end: ${heavyAtEnd.join(', ')}`,
);
console.log('| endpoint | idle p50 / p99 (ms) | under load p50 / p99 (ms) | ratio p50 / p99 | target p99 <= 50 ms |');
console.log('|---|---|---|---|---|');
console.log(row('GET /healthz', idle.health[0]!, loaded.health[0]!));
console.log(row('GET /api/v1/jobs/{id}', idle.job[0]!, loaded.job[0]!));
