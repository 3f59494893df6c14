/**
 * The shared store going away under load and coming back: every contract request answers 503
 * service_unavailable with Retry-After within 2 s while Redis is down (no hang), /health stays
 * 200, and normal answers resume without restarting the mock.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningMockServer, startMockServer } from '../../src/server/mock-server.js';
import { evaluationRequest } from '../support/fixtures.js';
import { redisAvailable, startTestRedis, type TestRedis } from '../support/redis-server.js';
import { inTime } from '../support/time-limits.js';

let redis: TestRedis;
let server: RunningMockServer;
const logged: string[] = [];
const caller = { authorization: 'Bearer outage-test' };

function create(key: string) {
  return fetch(`${server.url}/v0/evaluations`, {
    method: 'POST',
    headers: { ...caller, 'content-type': 'application/json', 'idempotency-key': key },
    body: JSON.stringify(evaluationRequest()),
  });
}

describe.runIf(redisAvailable)('the shared store out of reach', () => {
  beforeAll(async () => {
    redis = await startTestRedis({ persistence: true });
    server = await startMockServer({ port: 0, store: { url: redis.url, namespace: 'outage' }, log: (line) => logged.push(line) });
  });
  afterAll(async () => {
    await server?.close({ graceMs: 100 });
    await redis?.close();
  });

  it('answers 503 with Retry-After within 2 s while Redis is down, and recovers by itself', async () => {
    const before = await create('before-outage');
    expect(before.status).toBe(202);
    const { jobId } = (await before.json()) as { jobId: string };

    await redis.stop({ hard: true });
    // The store's 1 s deadlines turn an outage into 503s: answers at all, not their speed.
    const bound = inTime(1000);
    const started = performance.now();
    const answers = await Promise.all(
      Array.from({ length: 60 }, async (_, index) => {
        const sent = performance.now();
        const response =
          index % 3 === 0
            ? await create(`during-${index}`)
            : index % 3 === 1
              ? await fetch(`${server.url}/v0/jobs/${jobId}`, { headers: caller })
              : await fetch(`${server.url}/__mock/scenario`, {
                  method: 'PUT',
                  headers: { 'content-type': 'application/json' },
                  body: JSON.stringify({ name: 'fail' }),
                });
        return {
          status: response.status,
          retryAfter: response.headers.get('retry-after'),
          body: await response.json(),
          ms: performance.now() - sent,
        };
      }),
    );
    const elapsed = performance.now() - started;
    for (const answer of answers) {
      expect(answer).toMatchObject({ status: 503, retryAfter: '1', body: { code: 'service_unavailable' } });
      expect(answer.ms).toBeLessThan(bound);
    }
    expect(elapsed).toBeLessThan(bound);
    // The process is alive and says so; health does not touch the store.
    expect((await fetch(`${server.url}/health`)).status).toBe(200);

    await redis.start();
    await expect.poll(async () => (await create('after-outage')).status, { interval: 100 }).toBe(202);
    // With persistence, the job created before the outage is still there.
    const again = await fetch(`${server.url}/v0/jobs/${jobId}`, { headers: caller });
    expect(again.status).toBe(200);
    expect(logged.some((line) => /shared store .* lost/.test(line))).toBe(true);
    expect(logged.some((line) => /reachable again/.test(line))).toBe(true);
  });

  it('answers 503 within 2 s when Redis hangs instead of refusing, and goes on when it wakes', async () => {
    expect((await create('before-hang')).status).toBe(202);
    redis.pause();
    try {
      const answers = await Promise.all(
        Array.from({ length: 20 }, async (_, index) => {
          const sent = performance.now();
          const response = await create(`hang-${index}`);
          return { status: response.status, retryAfter: response.headers.get('retry-after'), ms: performance.now() - sent };
        }),
      );
      for (const answer of answers) {
        expect(answer).toMatchObject({ status: 503, retryAfter: '1' });
        expect(answer.ms).toBeLessThan(inTime(1000));
      }
    } finally {
      redis.resume();
    }
    await expect.poll(async () => (await create('after-hang')).status, { interval: 100 }).toBe(202);
  });
});
