/**
 * The plan gate an operation declares is the one its services enforce: the services
 * hold the rule (core/services/plan-gates.ts, a tool's manifest) and every surface reaches them
 * through the operation's own handlers, so for each gated operation of the table a caller one plan
 * below is refused `plan_required` by that handler, and a caller on the declared plan is not.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FEATURE_MIN_PLAN, PLAN_IDS, type PlanId } from '../../../schema/index.js';
import { Registry } from '../../../core/registry/index.js';
import { PLAN_REQUIRED } from '../../../core/services/plan-gates.js';
import { ServiceError, type Principal, type Services } from '../../../core/services/index.js';
import { servicesOverSqlite } from '../../../core/services/testing/services.js';
import type { SqliteStore } from '../../../core/store/sqlite/index.js';
import { standardPlugins } from '../../../plugins/index.js';
import type { AnyOperation } from './operation.js';
import { operationTable } from './table.js';

/** What the operation's handler answers a caller: `plan_required`, or anything else. */
async function gateOf(operation: AnyOperation, services: Services, principal: Principal): Promise<string> {
  try {
    if (operation.admit) operation.admit(services, principal);
    // A JSON operation's handler on an id that does not exist: past the gate, a 404 or a 400.
    else await operation.run!(services, principal, { id: 'missing', jobId: 'missing' });
    return 'allowed';
  } catch (err) {
    if (!(err instanceof ServiceError)) throw err;
    return err.detail.code === PLAN_REQUIRED ? PLAN_REQUIRED : `${err.code}`;
  }
}

describe('plan gates of the operation table', () => {
  let dir: string;
  let services: Services;
  let store: SqliteStore;
  const principals = new Map<PlanId, Principal>();

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'transmute-plan-gates-'));
    ({ store, services } = servicesOverSqlite(
      dir,
      new Registry(standardPlugins),
      'plan-gates-test-secret-of-at-least-32-bytes',
    ));
    for (const plan of PLAN_IDS) {
      const account = await services.accounts.createAccount({ plan });
      principals.set(plan, { account, keyId: `key-${plan}` });
    }
  });

  afterAll(async () => {
    await store?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('declares the services’ own rules', () => {
    const declared = Object.fromEntries(operationTable(services).map(({ name, plan }) => [name, plan]));
    expect(declared).toMatchObject({
      mergePdf: FEATURE_MIN_PLAN.merge,
      batchConvert: FEATURE_MIN_PLAN.batch,
      createSignedUrl: FEATURE_MIN_PLAN['signed-urls'],
      createWebhookEndpoint: FEATURE_MIN_PLAN.webhooks,
      parseCv: services.capabilities.extractionTools().find(({ tool }) => tool === 'parse-cv')?.plan,
    });
  });

  it('refuses a caller below the declared plan through the handler, and lets the declared plan through', async () => {
    const gated = operationTable(services).filter((operation) => operation.plan && (operation.admit || operation.run));
    expect(gated.length).toBeGreaterThan(10);
    const trialTools = new Set(
      services.capabilities
        .extractionTools()
        .filter(({ freeTrial }) => freeTrial)
        .map(({ tool }) => `/api/${tool}`),
    );
    for (const operation of gated) {
      const rank = PLAN_IDS.indexOf(operation.plan!);
      const at = await gateOf(operation, services, principals.get(operation.plan!)!);
      expect(at, `${operation.name} on ${operation.plan}`).not.toBe(PLAN_REQUIRED);
      // A tool's free try lets a Free caller in once: its gate is the trial's, tested with the tools.
      if (rank === 0 || trialTools.has(operation.path)) continue;
      const below = await gateOf(operation, services, principals.get(PLAN_IDS[rank - 1]!)!);
      expect(below, `${operation.name} on ${PLAN_IDS[rank - 1]}`).toBe(PLAN_REQUIRED);
    }
  });
});
