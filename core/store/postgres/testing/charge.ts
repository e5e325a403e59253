/** Child process of postgres.test.ts: `count` concurrent charges of 3 against 100, results sent to the parent. */
import { PostgresStore } from '../index.js';

const [url, accountId, count] = process.argv.slice(2) as [string, string, string];
const store = await PostgresStore.connect(url, { poolSize: 25 });
const results = await Promise.all(
  [...Array(Number(count))].map(() => store.credits.usage.charge(accountId, '2030-01', 3, 100)),
);
await store.close();
process.send!(
  results.map((r) => r.ok),
  () => process.exit(0),
);
