/** Accounts, API keys, logins, sessions and e-mail links in MongoDB. */
import { MongoServerError, type Collection, type Db } from 'mongodb';
import type {
  Account,
  ApiKeyRecord,
  LoginRecord,
  SessionRecord,
  EmailTokenRecord,
  AccountRepo,
  KeyRepo,
  LoginRepo,
  SessionRepo,
  EmailTokenRepo,
  AccountsStore,
} from '../types.js';
import { DUPLICATE_KEY } from './documents.js';
import {
  COLLECTIONS,
  type AccountDoc,
  type EmailTokenDoc,
  type KeyDoc,
  type LoginDoc,
  type SessionDoc,
} from './schema.js';

function accountFromDoc({ _id, ...doc }: AccountDoc): Account {
  return {
    id: _id,
    plan: doc.plan,
    email: doc.email,
    emailVerified: doc.emailVerified,
    overageEnabled: doc.overageEnabled,
    creditsIncluded: doc.creditsIncluded,
    requestsPerMinute: doc.requestsPerMinute,
    createdAt: doc.createdAt,
  };
}

function keyFromDoc({ _id, ...doc }: KeyDoc): ApiKeyRecord {
  return {
    id: _id,
    accountId: doc.accountId,
    hash: doc.hash,
    prefix: doc.prefix,
    createdAt: doc.createdAt,
    revokedAt: doc.revokedAt,
    name: doc.name ?? null,
    lastUsedAt: doc.lastUsedAt ?? null,
  };
}

function loginFromDoc({ _id, ...doc }: LoginDoc): LoginRecord {
  return {
    email: _id,
    accountId: doc.accountId,
    passwordHash: doc.passwordHash,
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
  };
}

function sessionFromDoc({ _id, ...doc }: SessionDoc): SessionRecord {
  return {
    hash: _id,
    accountId: doc.accountId,
    csrfHash: doc.csrfHash,
    createdAt: doc.createdAt,
    expiresAt: doc.expiresAt,
  };
}

function emailTokenFromDoc({ _id, ...doc }: EmailTokenDoc): EmailTokenRecord {
  return { hash: _id, accountId: doc.accountId, email: doc.email, createdAt: doc.createdAt, expiresAt: doc.expiresAt };
}

function accountRepo(accounts: Collection<AccountDoc>): AccountRepo {
  const updatable = [
    'plan',
    'email',
    'emailVerified',
    'overageEnabled',
    'creditsIncluded',
    'requestsPerMinute',
  ] as const;
  return {
    async create(a) {
      await accounts.insertOne({
        _id: a.id,
        plan: a.plan,
        email: a.email,
        emailVerified: a.emailVerified,
        overageEnabled: a.overageEnabled,
        creditsIncluded: a.creditsIncluded,
        requestsPerMinute: a.requestsPerMinute,
        createdAt: a.createdAt,
      });
    },
    async get(id) {
      const doc = await accounts.findOne({ _id: id });
      return doc ? accountFromDoc(doc) : null;
    },
    async update(id, patch) {
      const set = Object.fromEntries(
        updatable.filter((field) => patch[field] !== undefined).map((field) => [field, patch[field]]),
      );
      if (Object.keys(set).length) await accounts.updateOne({ _id: id }, { $set: set });
    },
  };
}

function keyRepo(keys: Collection<KeyDoc>): KeyRepo {
  return {
    async create(k) {
      await keys.insertOne({
        _id: k.id,
        accountId: k.accountId,
        hash: k.hash,
        prefix: k.prefix,
        createdAt: k.createdAt,
        revokedAt: k.revokedAt,
        name: k.name ?? null,
        lastUsedAt: k.lastUsedAt ?? null,
      });
    },
    async revokeById(accountId, id, at) {
      return (
        (await keys.updateOne({ _id: id, accountId, revokedAt: null }, { $set: { revokedAt: at } })).modifiedCount > 0
      );
    },
    async markUsed(id, at, staleBefore) {
      // A missing field (keys made before it existed) counts as never used.
      await keys.updateOne(
        { _id: id, $or: [{ lastUsedAt: null }, { lastUsedAt: { $lt: staleBefore } }] },
        { $set: { lastUsedAt: at } },
      );
    },
    async findActiveByHash(hash) {
      const doc = await keys.findOne({ hash, revokedAt: null });
      return doc ? keyFromDoc(doc) : null;
    },
    async listByAccount(accountId) {
      return (await keys.find({ accountId }).sort({ createdAt: 1, _id: 1 }).toArray()).map(keyFromDoc);
    },
    async revokeByHash(hash, at) {
      return (await keys.updateOne({ hash, revokedAt: null }, { $set: { revokedAt: at } })).modifiedCount > 0;
    },
  };
}

function loginRepo(logins: Collection<LoginDoc>): LoginRepo {
  return {
    async create(l) {
      try {
        await logins.insertOne({
          _id: l.email,
          accountId: l.accountId,
          passwordHash: l.passwordHash,
          createdAt: l.createdAt,
          updatedAt: l.updatedAt,
        });
        return true;
      } catch (err) {
        if (err instanceof MongoServerError && err.code === DUPLICATE_KEY) return false;
        throw err;
      }
    },
    async findByEmail(email) {
      const doc = await logins.findOne({ _id: email });
      return doc ? loginFromDoc(doc) : null;
    },
    async getByAccount(accountId) {
      const doc = await logins.findOne({ accountId });
      return doc ? loginFromDoc(doc) : null;
    },
    async setPasswordHash(accountId, passwordHash, at) {
      return (await logins.updateOne({ accountId }, { $set: { passwordHash, updatedAt: at } })).matchedCount > 0;
    },
  };
}

function sessionRepo(sessions: Collection<SessionDoc>): SessionRepo {
  return {
    async create(s) {
      await sessions.insertOne({
        _id: s.hash,
        accountId: s.accountId,
        csrfHash: s.csrfHash,
        createdAt: s.createdAt,
        expiresAt: s.expiresAt,
      });
    },
    async findActive(hash, now) {
      const doc = await sessions.findOne({ _id: hash, expiresAt: { $gt: now } });
      return doc ? sessionFromDoc(doc) : null;
    },
    async extend(hash, expiresAt) {
      await sessions.updateOne({ _id: hash }, { $max: { expiresAt } });
    },
    async delete(hash) {
      await sessions.deleteOne({ _id: hash });
    },
    async deleteByAccount(accountId) {
      return (await sessions.deleteMany({ accountId })).deletedCount;
    },
    async deleteExpired(now) {
      return (await sessions.deleteMany({ expiresAt: { $lte: now } })).deletedCount;
    },
  };
}

function emailTokenRepo(tokens: Collection<EmailTokenDoc>): EmailTokenRepo {
  return {
    async create(t) {
      await tokens.insertOne({
        _id: t.hash,
        accountId: t.accountId,
        email: t.email,
        createdAt: t.createdAt,
        expiresAt: t.expiresAt,
      });
    },
    async consume(hash, now) {
      // One delete takes the document: two clicks on the same link cannot both verify.
      const doc = await tokens.findOneAndDelete({ _id: hash });
      const token = doc ? emailTokenFromDoc(doc) : null;
      return token && token.expiresAt > now ? token : null;
    },
    async deleteByAccount(accountId) {
      return (await tokens.deleteMany({ accountId })).deletedCount;
    },
    async deleteExpired(now) {
      return (await tokens.deleteMany({ expiresAt: { $lte: now } })).deletedCount;
    },
  };
}

export function mongoAccounts(db: Db): AccountsStore {
  return {
    accounts: accountRepo(db.collection<AccountDoc>(COLLECTIONS.accounts)),
    keys: keyRepo(db.collection<KeyDoc>(COLLECTIONS.keys)),
    logins: loginRepo(db.collection<LoginDoc>(COLLECTIONS.logins)),
    sessions: sessionRepo(db.collection<SessionDoc>(COLLECTIONS.sessions)),
    emailTokens: emailTokenRepo(db.collection<EmailTokenDoc>(COLLECTIONS.emailTokens)),
  };
}
