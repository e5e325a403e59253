/** Webhooks: endpoints, account secrets, deliveries, attempt logs and override targets in MongoDB. */
import { MongoServerError, type Collection, type Db } from 'mongodb';
import type {
  WebhookEndpointRecord,
  WebhookDeliveryRecord,
  WebhookEndpointRepo,
  WebhookAccountSecretRepo,
  WebhookDeliveryRepo,
  WebhookAttemptRepo,
  WebhookTargetRepo,
  WebhooksStore,
} from '../types.js';
import { deliveryTarget } from '../types.js';
import { DUPLICATE_KEY, retryOnDuplicateKey } from './documents.js';
import {
  COLLECTIONS,
  type WebhookAttemptDoc,
  type WebhookDeliveryDoc,
  type WebhookEndpointDoc,
  type WebhookSecretDoc,
  type WebhookTargetDoc,
} from './schema.js';

function endpointFromDoc({ _id, ...doc }: WebhookEndpointDoc): WebhookEndpointRecord {
  return {
    id: _id,
    accountId: doc.accountId,
    url: doc.url,
    description: doc.description,
    events: doc.events,
    secret: doc.secret,
    previousSecret: doc.previousSecret,
    previousExpiresAt: doc.previousExpiresAt,
    disabledAt: doc.disabledAt,
    disabledReason: doc.disabledReason,
    failingSince: doc.failingSince,
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
  };
}

function webhookEndpointRepo(
  endpoints: Collection<WebhookEndpointDoc>,
  attempts: Collection<WebhookAttemptDoc>,
): WebhookEndpointRepo {
  const updatable = [
    'url',
    'description',
    'events',
    'secret',
    'previousSecret',
    'previousExpiresAt',
    'disabledAt',
    'disabledReason',
    'failingSince',
    'updatedAt',
  ] as const;
  return {
    async create({ id, ...e }) {
      await endpoints.insertOne({ _id: id, ...e, events: e.events ? [...e.events] : null });
    },
    async get(id) {
      const doc = await endpoints.findOne({ _id: id });
      return doc ? endpointFromDoc(doc) : null;
    },
    async listByAccount(accountId) {
      return (await endpoints.find({ accountId }).sort({ createdAt: 1, _id: 1 }).toArray()).map(endpointFromDoc);
    },
    async update(id, patch) {
      const set = Object.fromEntries(
        updatable.filter((field) => patch[field] !== undefined).map((field) => [field, patch[field]]),
      );
      if (Object.keys(set).length) await endpoints.updateOne({ _id: id }, { $set: set });
    },
    async delete(id) {
      const deleted = (await endpoints.deleteOne({ _id: id })).deletedCount > 0;
      await attempts.deleteMany({ endpointId: id });
      return deleted;
    },
  };
}

function webhookSecretRepo(secrets: Collection<WebhookSecretDoc>): WebhookAccountSecretRepo {
  return {
    async get(accountId) {
      const doc = await secrets.findOne({ _id: accountId });
      return doc
        ? {
            accountId: doc._id,
            secret: doc.secret,
            previousSecret: doc.previousSecret,
            previousExpiresAt: doc.previousExpiresAt,
            createdAt: doc.createdAt,
          }
        : null;
    },
    async put({ accountId, ...r }) {
      await retryOnDuplicateKey(() => secrets.replaceOne({ _id: accountId }, r, { upsert: true }));
    },
  };
}

function deliveryFromDoc({ _id, target: _target, ...doc }: WebhookDeliveryDoc): WebhookDeliveryRecord {
  return {
    id: _id,
    accountId: doc.accountId,
    eventKey: doc.eventKey,
    type: doc.type,
    subjectId: doc.subjectId,
    endpointId: doc.endpointId,
    url: doc.url,
    status: doc.status,
    attempts: doc.attempts,
    nextAttemptAt: doc.nextAttemptAt,
    lastStatusCode: doc.lastStatusCode,
    lastError: doc.lastError,
    createdAt: doc.createdAt,
    completedAt: doc.completedAt,
  };
}

function webhookDeliveryRepo(deliveries: Collection<WebhookDeliveryDoc>): WebhookDeliveryRepo {
  return {
    async create({ id, ...d }) {
      // The unique (eventKey, target) index decides between concurrent emissions: one insert wins.
      try {
        await deliveries.insertOne({
          _id: id,
          ...d,
          target: deliveryTarget(d),
          status: 'pending',
          attempts: 0,
          lastStatusCode: null,
          lastError: null,
          completedAt: null,
        });
        return true;
      } catch (err) {
        if (err instanceof MongoServerError && err.code === DUPLICATE_KEY) return false;
        throw err;
      }
    },
    async get(id) {
      const doc = await deliveries.findOne({ _id: id });
      return doc ? deliveryFromDoc(doc) : null;
    },
    async retryLater(id, a) {
      const result = await deliveries.updateOne(
        { _id: id, status: 'pending' },
        {
          $inc: { attempts: 1 },
          $set: { lastStatusCode: a.statusCode, lastError: a.error, nextAttemptAt: a.nextAttemptAt },
        },
      );
      return result.modifiedCount > 0;
    },
    async finish(id, o) {
      const result = await deliveries.updateOne(
        { _id: id, status: 'pending' },
        {
          $inc: { attempts: 1 },
          $set: {
            status: o.status,
            lastStatusCode: o.statusCode,
            lastError: o.error,
            nextAttemptAt: null,
            completedAt: o.at,
          },
        },
      );
      return result.modifiedCount > 0;
    },
    async listPending() {
      return (await deliveries.find({ status: 'pending' }).sort({ createdAt: 1, _id: 1 }).toArray()).map(
        deliveryFromDoc,
      );
    },
  };
}

function webhookAttemptRepo(attempts: Collection<WebhookAttemptDoc>): WebhookAttemptRepo {
  let last = 0;
  return {
    async add(a, keep) {
      // Increasing within this process, and by time across processes: the log's order.
      const seq = Math.max(Date.now() * 1000, last + 1);
      last = seq;
      await attempts.insertOne({ ...a, seq });
      if (a.endpointId === null) {
        await attempts.deleteMany({ endpointId: null, at: { $lt: new Date(a.at.getTime() - 24 * 3600_000) } });
        return;
      }
      const kept = await attempts
        .find({ endpointId: a.endpointId })
        .sort({ seq: -1 })
        .skip(keep - 1)
        .limit(1)
        .toArray();
      if (kept[0]) await attempts.deleteMany({ endpointId: a.endpointId, seq: { $lt: kept[0].seq } });
    },
    async listByEndpoint(endpointId, limit) {
      const docs = await attempts.find({ endpointId }).sort({ seq: -1 }).limit(limit).toArray();
      return docs.map((d) => ({
        deliveryId: d.deliveryId,
        endpointId: d.endpointId,
        type: d.type,
        at: d.at,
        statusCode: d.statusCode,
        latencyMs: d.latencyMs,
        error: d.error,
      }));
    },
  };
}

function webhookTargetRepo(targets: Collection<WebhookTargetDoc>): WebhookTargetRepo {
  return {
    async put(t) {
      await retryOnDuplicateKey(() =>
        targets.updateOne(
          { _id: t.subjectId },
          { $set: { url: t.url }, $setOnInsert: { accountId: t.accountId, createdAt: t.createdAt } },
          { upsert: true },
        ),
      );
    },
    async get(subjectId) {
      const doc = await targets.findOne({ _id: subjectId });
      return doc ? { subjectId: doc._id, accountId: doc.accountId, url: doc.url, createdAt: doc.createdAt } : null;
    },
  };
}

export function mongoWebhooks(db: Db): WebhooksStore {
  const attempts = db.collection<WebhookAttemptDoc>(COLLECTIONS.webhookAttempts);
  return {
    webhookEndpoints: webhookEndpointRepo(db.collection<WebhookEndpointDoc>(COLLECTIONS.webhookEndpoints), attempts),
    webhookSecrets: webhookSecretRepo(db.collection<WebhookSecretDoc>(COLLECTIONS.webhookSecrets)),
    webhookDeliveries: webhookDeliveryRepo(db.collection<WebhookDeliveryDoc>(COLLECTIONS.webhookDeliveries)),
    webhookAttempts: webhookAttemptRepo(attempts),
    webhookTargets: webhookTargetRepo(db.collection<WebhookTargetDoc>(COLLECTIONS.webhookTargets)),
  };
}
