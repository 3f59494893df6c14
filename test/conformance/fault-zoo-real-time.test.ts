/**
 * The zoo's faults whose detection is a matter of wall-clock time (Fault.realTime): a race window
 * between identical creates, a cold start slower than --max-response-time. Real time is the point,
 * so they run in the slow project (vitest.config.ts), apart from `npm test` (issue 43).
 */
import { expect, it } from 'vitest';
import { faults } from '../fixtures/fault-zoo/faults.js';
import { expectCaughtByItsCheck } from '../fixtures/fault-zoo/zoo-run.js';

const realTime = faults.filter((fault) => fault.realTime);

it('has the faults of the zoo whose detection races the wall clock', () => {
  expect(realTime.map((fault) => fault.name).sort()).toEqual([
    'concurrent-duplicates-race',
    'duplicates-race-within-1ms',
    'slow-verification',
  ]);
});

it.each(realTime.map((fault) => [fault.name, fault] as const))('catches %s with exactly its check', async (_, fault) =>
  expectCaughtByItsCheck(fault),
);
