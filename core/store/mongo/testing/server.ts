/** For tests that need a MongoDB server: none can be installed here, so they run only when MONGODB_URL is set. */
import { randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { describe, it } from 'vitest';

/**
 * Defines `suite` when MONGODB_URL is set; otherwise one skipped test (and a printed line)
 * says why, so a green run never hides that the MongoDB adapters went untested.
 */
export function describeWithMongo(name: string, suite: (url: string) => void): void {
  const url = process.env.MONGODB_URL;
  if (url) {
    suite(url);
    return;
  }
  console.warn(`${name}: skipped, MONGODB_URL is not set (no MongoDB server here)`);
  describe(name, () => {
    it.skip('needs a MongoDB server: set MONGODB_URL, e.g. mongodb://localhost:27017', () => undefined);
  });
}

/** A database name no other run uses. */
export function uniqueDatabaseName(): string {
  return `transmute_test_${randomUUID().slice(0, 8)}`;
}

export async function dropDatabase(url: string, dbName: string): Promise<void> {
  const client = await MongoClient.connect(url);
  try {
    await client.db(dbName).dropDatabase();
  } finally {
    await client.close();
  }
}
