import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { storeContractSuite } from '../contract.js';
import { SqliteStore, openSqliteDatabase } from './index.js';

storeContractSuite('SqliteStore', async () => {
  const directory = await mkdtemp(path.join(os.tmpdir(), 'transmute-store-'));
  const file = path.join(directory, 'transmute.db');
  return {
    openStore: async () => new SqliteStore(openSqliteDatabase(file)),
    destroy: () => rm(directory, { recursive: true, force: true }),
  };
});
