/**
 * Server CPU per poll: what the polling row's ratio depends on, less swayed by the machine's other load
 * than requests/s (it still rises with it: compare builds in one run). Compiled server trees (`node
 * scripts/build-app.mjs` prints the current one; an older one stays in .build/ for a day) and the trivial Fastify route
 * are served side by side; the same 200 keep-alive pollers poll each back to back in alternating rounds, and each
 * server's CPU time (the scheduler's count of its threads, not its children) is divided by the polls it answered.
 *
 *   npx tsx bench/polling-cpu.ts [--rounds 6] [--seconds 3] [--profile DIR] <build dir> [<build dir> ...]
 *
 * `--profile DIR` runs the servers under `--cpu-prof` (profiles written to DIR when they stop); `--node-arg X` passes
 * X to the services' Node (e.g. `--perf-basic-prof`, for `perf record -p <pid>`: the CPU profile counts the time a
 * preempted thread waits on a loaded machine, perf only the time on a CPU).
 * Not a test: a benchmark tool.
 */
import { readFile, readdir, rm } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import sharp from 'sharp';
import { spawnServer } from '../test/helpers.js';
import { convertTimed } from './lib/client.js';
import { benchDataDir, benchKey, startTrivialServer } from './lib/server.js';
import { spread } from './lib/stats.js';

const POLLERS = 200;
/** Samples every 100 µs (Node's default, 1 ms, gives too few for a 100 µs request). */
const PROFILE_INTERVAL_US = 100;
const IDLE_SECONDS = 5;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    rounds: { type: 'string', default: '6' },
    seconds: { type: 'string', default: '3' },
    profile: { type: 'string' },
    'node-arg': { type: 'string', multiple: true, default: [] },
  },
});

const profile = values.profile
  ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(values.profile)}`, `--cpu-prof-interval=${PROFILE_INTERVAL_US}`]
  : [];

/** CPU seconds of one process (all its threads, not its children), in nanoseconds from the scheduler's counts. */
async function cpuSeconds(pid: number): Promise<number> {
  let ns = 0;
  for (const task of await readdir(`/proc/${pid}/task`)) {
    const stat = await readFile(`/proc/${pid}/task/${task}/schedstat`, 'utf8').catch(() => '0');
    ns += Number(stat.split(' ')[0]);
  }
  return ns / 1e9;
}

interface Side {
  label: string;
  url: string;
  headers: Record<string, string>;
  pid: number;
  stop(): Promise<void>;
}

/** Starts the compiled server in `buildDir` with a finished job to poll; `sides` gets it at once (to be stopped). */
async function startServer(buildDir: string, sides: Side[]): Promise<void> {
  const dataDir = await benchDataDir('polling-cpu');
  const key = await benchKey(dataDir);
  // The product's defaults (a bench, not a test: the queue polls at its own pace).
  const server = await spawnServer(
    { DATA_DIR: dataDir, QUEUE_POLL_MS: '500' },
    { app: path.join(buildDir, 'apps/server/main.js'), nodeArgs: [...profile, ...values['node-arg']] },
  );
  const url = server.url;
  sides.push({
    label: path.basename(buildDir),
    url: '',
    headers: { authorization: `Bearer ${key}` },
    pid: server.process.pid!,
    async stop() {
      await server.kill('SIGTERM');
      await rm(dataDir, { recursive: true, force: true });
    },
  });
  const side = sides.at(-1)!;
  const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: { r: 0, g: 0, b: 0 } } })
    .png()
    .toBuffer();
  const { jobId } = await convertTimed(url, key, { name: 'tiny.png', data: png }, { to: 'webp' });
  side.url = `${url}/api/v1/jobs/${jobId}`;
}

/** `POLLERS` keep-alive clients polling `side` back to back for `seconds`; the polls answered. */
async function pollBackToBack(side: Side, seconds: number): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: POLLERS });
  const deadline = performance.now() + seconds * 1000;
  let answered = 0;
  const once = () =>
    new Promise<void>((resolve, reject) => {
      http
        .get(side.url, { agent, headers: side.headers }, (res) => {
          res.resume();
          res.on('end', () =>
            res.statusCode === 200 ? resolve() : reject(new Error(`${side.url}: ${res.statusCode}`)),
          );
        })
        .on('error', reject);
    });
  try {
    await Promise.all(
      Array.from({ length: POLLERS }, async () => {
        while (performance.now() < deadline) {
          await once();
          answered++;
        }
      }),
    );
  } finally {
    agent.destroy();
  }
  return answered;
}

const rounds = Number(values.rounds);
const seconds = Number(values.seconds);
const sides: Side[] = [];
try {
  for (const dir of positionals) await startServer(path.resolve(dir), sides);
  const trivial = await startTrivialServer(profile);
  sides.push({
    label: 'trivial',
    url: `${trivial.url}/trivial`,
    headers: {},
    pid: trivial.pid,
    stop: async () => trivial.stop(),
  });
  for (const side of sides) console.error(`${side.label}: pid ${side.pid}`);
  // What a server spends with nobody polling (its queue's timers, metrics...): part of every figure below.
  const idleBefore = await Promise.all(sides.map((side) => cpuSeconds(side.pid)));
  await sleep(IDLE_SECONDS * 1000);
  const idle = await Promise.all(sides.map(async (side, i) => (await cpuSeconds(side.pid)) - idleBefore[i]!));
  for (const [i, side] of sides.entries())
    console.error(`${side.label}: ${((idle[i]! / IDLE_SECONDS) * 1000).toFixed(1)} ms of CPU a second when idle`);
  for (const side of sides) await pollBackToBack(side, 2); // warm-up
  const results = new Map(sides.map((side) => [side, { cpuPerPoll: [] as number[], rate: [] as number[] }]));
  for (let round = 0; round < rounds; round++) {
    for (const side of sides) {
      const before = await cpuSeconds(side.pid);
      const polls = await pollBackToBack(side, seconds);
      const cpu = (await cpuSeconds(side.pid)) - before;
      results.get(side)!.cpuPerPoll.push((cpu / polls) * 1e6);
      results.get(side)!.rate.push(polls / seconds);
    }
    console.error(`round ${round + 1}/${rounds} done (load ${(await readFile('/proc/loadavg', 'utf8')).trim()})`);
  }
  console.log('| server | CPU per poll, median (min / max) | req/s, median (min / max) |');
  console.log('|---|---|---|');
  for (const [side, { cpuPerPoll, rate }] of results) {
    const cpu = spread(cpuPerPoll);
    const r = spread(rate);
    console.log(
      `| ${side.label} | ${cpu.median.toFixed(0)} µs (${cpu.min.toFixed(0)} / ${cpu.max.toFixed(0)}) | ` +
        `${r.median.toFixed(0)} (${r.min.toFixed(0)} / ${r.max.toFixed(0)}) |`,
    );
  }
} finally {
  for (const side of sides) await side.stop();
}
