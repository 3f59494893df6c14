/**
 * Concurrent polls of one job are applied in batches (operations.ts, queueRead): each poll is
 * still counted once and answered with its own step, in order, and another caller's poll in the
 * same batch is a 404 that counts nothing.
 */
import { expect, it } from 'vitest';
import { createMockEngine, VirtualClock } from '../../src/engine/index.js';
import { evaluationRequest, jsonPost, newKey } from '../support/fixtures.js';

it('counts every one of 10 concurrent polls once, answering the default timeline in order', async () => {
  const engine = createMockEngine({ clock: new VirtualClock() });
  const owner = { authorization: 'Bearer owner' };
  const created = await engine.handle(
    new Request('http://mock.local/v0/evaluations', jsonPost(evaluationRequest(), { ...owner, 'idempotency-key': newKey() })),
  );
  const { jobId } = (await created.json()) as { jobId: string };
  const poll = (headers: Record<string, string>) => engine.handle(new Request(`http://mock.local/v0/jobs/${jobId}`, { headers }));
  const answers = await Promise.all([
    ...Array.from({ length: 5 }, () => poll(owner)),
    poll({ authorization: 'Bearer stranger' }),
    ...Array.from({ length: 5 }, () => poll(owner)),
  ]);
  expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200, 404, 200, 200, 200, 200, 200]);
  const statuses = await Promise.all(
    answers.filter((answer) => answer.status === 200).map(async (answer) => ((await answer.json()) as { status: string }).status),
  );
  // RUNNING at the first read, COMPLETE at the third.
  expect(statuses).toEqual(['RUNNING', 'RUNNING', ...Array.from({ length: 8 }, () => 'COMPLETE')]);
  expect((await engine.control.inspectJob(jobId))?.reads).toBe(10);
});
