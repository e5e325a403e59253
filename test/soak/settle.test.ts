/** The soak's drain waits for a defined state: everything finished, or nothing finishing any more. */
import { expect, it } from 'vitest';
import { whileProgressing } from './checker.js';

it('waits while the count falls, however slowly, and answers 0 once it is', async () => {
  const counts = [3, 2, 2, 1, 0];
  expect(await whileProgressing(async () => counts.shift()!, 60_000, 60_000)).toBe(0);
  expect(counts).toEqual([]);
}, 30_000);

it('stops once the count stops falling, and answers what remained', async () => {
  let polls = 0;
  const stuckAtFive = async () => {
    polls++;
    return 5;
  };
  expect(await whileProgressing(stuckAtFive, 1, 60_000)).toBe(5);
  expect(polls).toBe(2);
}, 30_000);
