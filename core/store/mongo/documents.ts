/** Helpers shared by the MongoDB repositories. */
import { MongoServerError } from 'mongodb';

export const DUPLICATE_KEY = 11000;

/**
 * Two first writes to the same unique key can race: one upsert inserts, the other fails with a
 * duplicate key. Running it again then updates the row the winner inserted.
 */
export async function retryOnDuplicateKey<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (err instanceof MongoServerError && err.code === DUPLICATE_KEY) return write();
    throw err;
  }
}

/**
 * Options and reports are JSON on the wire; storing them as JSON keeps both adapters alike (no undefined, no class
 * instances).
 */
export const asJson = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;
