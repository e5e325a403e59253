/**
 * MongoDB dispatch without a MongoDB server (none can be installed here): which deployments get a
 * change stream, and that a change stream which cannot open never slows this process's own jobs
 * (they are still signalled locally) nor stops the queue. The real queue runs on SQLite; the
 * database handed to the channel refuses change streams as a standalone server does.
 */
import type { Db } from 'mongodb';
import { expect, it } from 'vitest';
import type { Logger } from '../../contract/index.js';
import { runDispatchScenario } from '../testing/dispatch.js';
import { isReplicated } from '../../store/mongo/index.js';
import { ChangeStreamDispatch, mongoDispatchChannel } from './index.js';

const warnings: string[] = [];
const log: Logger = { debug() {}, info() {}, warn: (message) => void warnings.push(message), error() {} };

it('uses change streams on replica sets and sharded clusters, polling on a standalone server', async () => {
  expect(isReplicated({ setName: 'rs0', isWritablePrimary: true })).toBe(true);
  expect(isReplicated({ msg: 'isdbgrid' })).toBe(true);
  expect(isReplicated({ isWritablePrimary: true })).toBe(false);

  const answering = (hello: object) => ({ command: async () => hello, collection: () => ({}) }) as unknown as Db;
  expect(await mongoDispatchChannel(answering({ isWritablePrimary: true }), log)).toBeUndefined();
  expect(await mongoDispatchChannel(answering({ setName: 'rs0' }), log)).toBeInstanceOf(ChangeStreamDispatch);
});

it('a change stream that cannot open leaves local dispatch immediate and the queue running', {
  timeout: 60_000,
}, async () => {
  const refusing = {
    command: async () => ({ setName: 'rs0' }),
    collection: () => ({
      watch() {
        throw new Error('The $changeStream stage is only supported on replica sets');
      },
    }),
  } as unknown as Db;
  const dispatch = (await mongoDispatchChannel(refusing, log)) as ChangeStreamDispatch;
  let streamingAtStart: boolean | undefined;
  const { finished } = await runDispatchScenario({
    log,
    dispatch,
    afterStart: () => (streamingAtStart = dispatch.streaming),
  });
  expect(streamingAtStart).toBe(false);
  expect(warnings.some((w) => w.includes('change stream failed'))).toBe(true);
  // Both ran though no poll came: signalled in this process.
  expect(finished).toEqual(['first', 'second']);
});
