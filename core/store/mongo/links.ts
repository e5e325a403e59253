/** Download links and signed URLs (stored as token hashes) in MongoDB. */
import type { Collection, Db } from 'mongodb';
import type { DownloadTokenRecord, TokenRepo, LinksStore } from '../types.js';
import { COLLECTIONS, type TokenDoc } from './schema.js';

function tokenFromDoc({ _id, ...doc }: TokenDoc): DownloadTokenRecord {
  return {
    hash: _id,
    jobId: doc.jobId,
    kind: doc.kind,
    reusable: doc.reusable,
    expiresAt: doc.expiresAt,
    consumedAt: doc.consumedAt,
    createdAt: doc.createdAt,
  };
}

function tokenRepo(tokens: Collection<TokenDoc>): TokenRepo {
  return {
    async create(t) {
      await tokens.insertOne({
        _id: t.hash,
        jobId: t.jobId,
        kind: t.kind,
        reusable: t.reusable,
        expiresAt: t.expiresAt,
        consumedAt: t.consumedAt,
        createdAt: t.createdAt,
      });
    },
    async get(hash) {
      const doc = await tokens.findOne({ _id: hash });
      return doc ? tokenFromDoc(doc) : null;
    },
    async consume(hash, at) {
      return (await tokens.updateOne({ _id: hash, consumedAt: null }, { $set: { consumedAt: at } })).modifiedCount > 0;
    },
    async deleteExpired(now) {
      return (await tokens.deleteMany({ expiresAt: { $lte: now } })).deletedCount;
    },
  };
}

export function mongoLinks(db: Db): LinksStore {
  return {
    tokens: tokenRepo(db.collection<TokenDoc>(COLLECTIONS.tokens)),
  };
}
