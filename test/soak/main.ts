/**
 * The fault-injection soak of the PostgreSQL + S3 mode (docs/SCALE-OUT.md, "Fault-injection soak"):
 *
 *   npm run soak -- --minutes N [--seed S] [--keep]
 *
 * Prints `seed=S` first (replay a run with --seed S), runs 2 APIs and 2 workers on PostgreSQL + S3 under a mixed
 * load over REST, GraphQL and tRPC for N minutes while a seeded injector kills, stalls and cuts things, lets the
 * load drain, checks the invariants, and ends with `K invariant violations` (exit code 1 when K > 0).
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { orphanUploadAgeMs } from '../../core/services/upload-time.js';
import { PostgresStore } from '../../core/store/postgres/index.js';
import { adminWith, sleep } from '../helpers.js';
import { Verifier, allJobs, check, orphanedProcesses, waitForWebhooks, whileProgressing } from './checker.js';
import { Cluster, crashCause } from './cluster.js';
import { FaultInjector } from './faults.js';
import { makeDocuments } from './inputs.js';
import { Load, type Account } from './load.js';
import { Random } from '../testing/random.js';
import { WebhookReceiver } from './receiver.js';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '3' },
    seed: { type: 'string' },
    keep: { type: 'boolean', default: false },
  },
});
const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed);
const minutes = Number(values.minutes);
if (!Number.isInteger(seed) || seed < 0 || !(minutes > 0 && minutes <= 24 * 60)) {
  console.error('usage: npm run soak -- --minutes N [--seed S] [--keep]  (N > 0, S a non-negative integer)');
  process.exit(2);
}
console.log(`seed=${seed}`);
// The soak's own S3 client (the checker's listing) runs on Node 20 as the product does.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

const LOCK_MS = 6000;
const RETENTION_S = 60;
/**
 * The body deadline: short, so uploads no job holds (a killed process's) go within the run too (upload-time.ts:
 * after UPLOAD_MAX_S + 7 minutes); the soak's files are small.
 */
const UPLOAD_MAX_S = 60;
const PURGE_EVERY_MS = 60_000;
/**
 * The drain and the webhook wait last while they progress: a loaded machine drains a backlog slowly, which is no
 * violation, while a lost or stuck job never finishes. Stalled: nothing finished (or came) for this long, longer than
 * any retry's back-off. The cap only bounds a run that never settles.
 */
const STALL_MS = 5 * 60_000;
const SETTLE_CAP_MS = 90 * 60_000;
const started = Date.now();
const say = (line: string) => console.log(`[${((Date.now() - started) / 1000).toFixed(0).padStart(5)} s] ${line}`);

async function createAccount(cluster: Cluster, name: string): Promise<Account> {
  const created = await adminWith(cluster.directEnv(), 'create-key', '--plan', 'enterprise');
  if (created.code !== 0) throw new Error(`create-key failed: ${JSON.stringify(created.result)}`);
  return { name, key: created.result.key as string, accountId: created.result.accountId as string };
}

async function registerWebhook(cluster: Cluster, receiver: WebhookReceiver, account: Account): Promise<void> {
  const res = await fetch(`${cluster.apis[0]!.url}/api/v1/webhooks`, {
    method: 'POST',
    headers: { authorization: `Bearer ${account.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      url: `${receiver.url}/hooks/${account.name}`,
      events: ['job.done', 'job.failed', 'batch.done'],
    }),
  });
  const body = (await res.json()) as { secret?: string };
  if (res.status !== 201 || !body.secret) throw new Error(`webhook registration answered ${res.status}`);
  receiver.register(account.name, body.secret);
}

async function main(): Promise<number> {
  const random = new Random(seed);
  const cluster = await Cluster.create({
    lockMs: LOCK_MS,
    retentionS: RETENTION_S,
    uploadMaxS: UPLOAD_MAX_S,
    workersPerNode: 2,
  });
  say(`cluster under ${cluster.root} (logs in ${path.join(cluster.root, 'logs')})`);
  const receiver = new WebhookReceiver(random.fork());
  let store: PostgresStore | undefined;
  let violations: string[] = [];
  try {
    await cluster.start({ apis: 2, workers: 2 });
    say(`2 APIs and 2 workers up on PostgreSQL + S3 (QUEUE_LOCK_MS=${LOCK_MS}, RETENTION_S=${RETENTION_S})`);
    store = await PostgresStore.connect(cluster.databaseUrl, { poolSize: 4 });
    await receiver.start();
    const accounts = await Promise.all(['alpha', 'bravo', 'charlie'].map((name) => createAccount(cluster, name)));
    for (const account of accounts) await registerWebhook(cluster, receiver, account);
    const scratch = path.join(cluster.root, 'soak');
    await mkdir(scratch, { recursive: true });
    const documents = await makeDocuments(path.join(scratch, 'documents'), 4);

    const until = Date.now() + minutes * 60_000;
    const load = new Load(random.fork(), {
      apis: cluster.apis,
      accounts,
      documents,
      lanes: 3,
      until,
      cancelShare: 0.12,
    });
    const injector = new FaultInjector(cluster, random.fork(), { until, lockMs: LOCK_MS, gapMs: [2000, 7000] }, say);
    const verifier = new Verifier(cluster, store, load.ledger, accounts, scratch);
    const verifying = verifier.run();
    const progress = setInterval(() => {
      const accepted = load.ledger.submissions.filter((s) => s.outcome === 'accepted').length;
      say(
        `load: ${load.ledger.submissions.length} requests, ${accepted} accepted; faults: ${injector.faults.length} ` +
          `${JSON.stringify(injector.counts())}`,
      );
    }, 30_000);
    say(`load and faults for ${minutes} min`);
    cluster.supervise = true;
    await Promise.all([load.run(), injector.run()]);
    clearInterval(progress);
    say(`load over: ${load.ledger.submissions.length} requests; ${injector.faults.length} faults; healing`);
    await injector.heal();

    // Drain: every job done or failed, while jobs keep finishing.
    const drainStore = store;
    const unfinished = async () => {
      const jobs = await allJobs(drainStore, accounts);
      return jobs.filter((job) => job.status !== 'done' && job.status !== 'failed').length;
    };
    const left = await whileProgressing(unfinished, STALL_MS, SETTLE_CAP_MS);
    say(left ? `drain stalled with ${left} jobs unfinished; waiting for webhooks` : 'drained; waiting for webhooks');
    await waitForWebhooks(store, accounts, receiver, STALL_MS, SETTLE_CAP_MS);
    verifier.stop();
    await verifying;
    // Outputs of the last jobs: one more round, retried a few times while an answer is missing.
    for (let i = 0; i < 5; i++) {
      await verifier.round().catch(() => undefined);
      if ([...verifier.verified.values()].every((v) => v.ok || v.tries === Number.POSITIVE_INFINITY)) break;
      await sleep(2000);
    }
    // At least one purge after the last fault, so a file the purge owed is gone when the check looks.
    await sleep(PURGE_EVERY_MS + 15_000);
    const result = await check({
      cluster,
      store,
      ledger: load.ledger,
      accounts,
      verifier,
      receiver,
      retentionMs: RETENTION_S * 1000,
      uploadOrphanAgeMs: orphanUploadAgeMs(RETENTION_S * 1000, UPLOAD_MAX_S * 1000),
      purgeEveryMs: PURGE_EVERY_MS,
    });
    violations = result.violations;
    // A process that exited by itself while it ran (not while starting: a start that cannot reach PostgreSQL
    // exits 1 by design, and is started again).
    for (const crash of cluster.crashes)
      violations.push(
        `crash: ${crash.node} (pid ${crash.pid}) exited with ${crash.exit} while running: ${crashCause(crash.stderr)}`,
      );
    for (const orphan of await orphanedProcesses(cluster)) violations.push(`orphan: ${orphan}`);
    await cluster.stopAll();
    await sleep(2000);
    for (const orphan of await orphanedProcesses(cluster)) violations.push(`orphan after stop: ${orphan}`);

    const faultCounts = injector.counts();
    say(`jobs: ${JSON.stringify(result.summary)}`);
    say(`faults: ${injector.faults.length} ${JSON.stringify(faultCounts)}`);
    const failedFaults = injector.faults.filter((f) => f.error);
    if (failedFaults.length)
      say(`faults that went wrong: ${failedFaults.map((f) => `${f.kind}: ${f.error}`).join('; ')}`);
    if (load.ledger.serverErrors.length)
      say(`500 answers (${load.ledger.serverErrors.length}): ${load.ledger.serverErrors.slice(0, 5).join(' | ')}`);
    const refusals = new Map<string, number>();
    for (const sub of load.ledger.submissions)
      if (sub.outcome !== 'accepted') {
        const what = `${sub.outcome} ${sub.status ?? 'no answer'}`;
        refusals.set(what, (refusals.get(what) ?? 0) + 1);
      }
    say(`requests not accepted: ${JSON.stringify(Object.fromEntries(refusals))}`);
    const examples = new Map<string, string>();
    for (const sub of load.ledger.submissions)
      if (sub.outcome !== 'accepted' && sub.error) examples.set(sub.error.slice(0, 100), `${sub.kind}/${sub.surface}`);
    say(
      `examples: ${[...examples]
        .slice(0, 8)
        .map(([error, what]) => `${what}: ${error}`)
        .join(' | ')}`,
    );
    const errors = new Map<string, number>();
    for (const job of result.jobs)
      if (job.status === 'failed') errors.set(job.error ?? '', (errors.get(job.error ?? '') ?? 0) + 1);
    say(`failure reasons: ${JSON.stringify(Object.fromEntries(errors))}`);
    const kinds = new Map<string, number>();
    for (const line of violations) kinds.set(line.split(':')[0]!, (kinds.get(line.split(':')[0]!) ?? 0) + 1);
    if (violations.length) say(`violations by kind: ${JSON.stringify(Object.fromEntries(kinds))}`);
    // All of them in the kept folder; the first hundred here.
    await writeFile(path.join(cluster.root, 'violations.txt'), violations.map((line) => `${line}\n`).join(''));
    for (const line of violations.slice(0, 100)) console.log(`VIOLATION ${line}`);
  } catch (err) {
    violations.push(`the soak itself failed: ${(err as Error).stack ?? err}`);
    console.log(`VIOLATION ${violations.at(-1)}`);
  } finally {
    await store?.close().catch(() => undefined);
    await receiver.close().catch(() => undefined);
    await cluster.close().catch((err: Error) => say(`closing the cluster: ${err.message}`));
    if (violations.length === 0 && !values.keep) await rm(cluster.root, { recursive: true, force: true });
    else say(`kept ${cluster.root} for inspection`);
  }
  console.log(`${violations.length} invariant violations`);
  return violations.length ? 1 : 0;
}

process.exitCode = await main();
