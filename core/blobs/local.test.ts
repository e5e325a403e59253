import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { blobStoreContractSuite } from './testing/suite.js';
import { LocalBlobStore } from './local.js';

blobStoreContractSuite('LocalBlobStore', async () => {
  const root = await mkdtemp(path.join(os.tmpdir(), 'transmute-blobs-'));
  return { blobs: new LocalBlobStore(root), destroy: () => rm(root, { recursive: true, force: true }) };
});
