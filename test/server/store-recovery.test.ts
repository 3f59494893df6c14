/**
 * Replicas on one Redis after the store went away and came back (review of issue 15): a
 * replica that missed announcements reads the shared state again, a scenario change refused
 * with 503 is undone, a Redis that lost everything sends every replica back to its starting
 * scenario, a reset empties the shared journal, and a start that fails leaves no connection.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningMockServer, startMockServer } from '../../src/server/mock-server.js';
import { openRedisConnection, type RedisConnection } from '../../src/server/redis/redis-connection.js';
import { evaluationRequest, jsonPost } from '../support/fixtures.js';
import { redisAvailable, startTestRedis, type TestRedis } from '../support/redis-server.js';
import { inTime } from '../support/time-limits.js';

let redis: TestRedis;
let namespaces = 0;
const running: RunningMockServer[] = [];

async function replicas(count: number): Promise<RunningMockServer[]> {
  namespaces += 1;
  const store = { url: redis.url, namespace: `recovery-${namespaces}` };
  const started = await Promise.all(Array.from({ length: count }, () => startMockServer({ port: 0, store })));
  running.push(...started);
  return started;
}

async function current(server: RunningMockServer): Promise<string> {
  return ((await (await fetch(`${server.url}/__mock/scenarios`)).json()) as { current: string }).current;
}

function use(server: RunningMockServer, name: string): Promise<Response> {
  return fetch(`${server.url}/__mock/scenario`, { ...jsonPost({ name }), method: 'PUT' });
}

const settle = { interval: 50 };

describe.runIf(redisAvailable)('replicas after the shared store went away', () => {
  let admin: RedisConnection;
  beforeAll(async () => {
    redis = await startTestRedis();
    admin = await openRedisConnection({ url: redis.url });
  });
  afterAll(async () => {
    for (const server of running) await server.close({ graceMs: 100 });
    await admin?.close();
    await redis?.close();
  });

  it('reads the shared scenario again after its subscription was cut, so a change it missed is not lost', async () => {
    const [a, b] = (await replicas(2)) as [RunningMockServer, RunningMockServer];
    // Cut every subscriber connection: b hears nothing until its client has reconnected.
    await admin.command(['CLIENT', 'KILL', 'TYPE', 'pubsub']);
    expect((await use(a, 'fail')).status).toBe(200);
    await expect.poll(() => current(b), settle).toBe('fail');
  });

  it('undoes a scenario change that could not be shared, once Redis answers again', async () => {
    const [a, b] = (await replicas(2)) as [RunningMockServer, RunningMockServer];
    await redis.stop({ hard: true });
    const refused = await use(a, 'fail');
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    await redis.start();
    await expect.poll(() => current(a), settle).toBe('default');
    expect(await current(b)).toBe('default');
  });

  it('sends every replica back to its starting scenario when Redis comes back empty', async () => {
    const [a, b] = (await replicas(2)) as [RunningMockServer, RunningMockServer];
    expect((await use(a, 'fail')).status).toBe(200);
    await expect.poll(() => current(b), settle).toBe('fail');
    await redis.stop({ hard: true });
    await redis.start();
    await expect.poll(async () => [await current(a), await current(b)], settle).toEqual(['default', 'default']);
  });

  it('empties the journal every replica shares on reset', async () => {
    const [a, b] = (await replicas(2)) as [RunningMockServer, RunningMockServer];
    await fetch(`${a.url}/health`);
    await fetch(`${b.url}/health`);
    await expect
      .poll(async () => ((await (await fetch(`${b.url}/__mock/journal`)).json()) as { entries: unknown[] }).entries.length, settle)
      .toBe(2);
    expect((await fetch(`${a.url}/__mock/reset`, { method: 'POST' })).status).toBe(200);
    expect(((await (await fetch(`${b.url}/__mock/journal`)).json()) as { entries: unknown[] }).entries).toEqual([]);
  });

  it('answers polls of one job and duplicate creates waiting behind a command that timed out with the same 503, within 1.5 s', async () => {
    const [a] = (await replicas(1)) as [RunningMockServer];
    const headers = { authorization: 'Bearer hang', 'idempotency-key': 'hang-key' };
    const created = await fetch(`${a.url}/v0/evaluations`, jsonPost(evaluationRequest(), headers));
    const { jobId } = (await created.json()) as { jobId: string };
    redis.pause();
    try {
      const answers = await Promise.all(
        [
          ...Array.from({ length: 5 }, () => fetch(`${a.url}/v0/jobs/${jobId}`, { headers })),
          ...Array.from({ length: 5 }, () =>
            fetch(`${a.url}/v0/evaluations`, jsonPost(evaluationRequest(), { ...headers, 'idempotency-key': 'hang-new-key' })),
          ),
        ].map(async (answer) => {
          const sent = performance.now();
          const response = await answer;
          return { status: response.status, ms: performance.now() - sent };
        }),
      );
      for (const answer of answers) {
        expect(answer.status).toBe(503);
        // The store's 1 s command deadline turns a hang into a 503: an answer at all, not its speed.
        expect(answer.ms).toBeLessThan(inTime(1000));
      }
    } finally {
      redis.resume();
    }
  });

  it('closes its connections to Redis when the start fails', async () => {
    // The admin connection itself may still be reconnecting after an earlier test's Redis restart.
    const clients = async (): Promise<number> => {
      for (let attempt = 0; ; attempt += 1) {
        try {
          return String(await admin.command(['CLIENT', 'LIST']))
            .trim()
            .split('\n').length;
        } catch (error) {
          if (attempt >= 100) throw error;
          // real-time: a reconnect's pace, 100 looks of 200 ms: the hang bound (inTime()), not a margin.
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      }
    };
    // Earlier tests' clients may still be closing: measure once the count has held for 300 ms.
    // A busy machine can only make `before` too high, which the check below tolerates (at most, never equal).
    const settled = async () => {
      let last = await clients();
      for (let attempt = 0; attempt < 20; attempt += 1) {
        // real-time: a settling heuristic that can only weaken the check below, never fail it.
        await new Promise((resolve) => setTimeout(resolve, 300));
        const now = await clients();
        if (now === last) return now;
        last = now;
      }
      return last;
    };
    const before = await settled();
    for (let attempt = 0; attempt < 3; attempt += 1) {
      await expect(
        startMockServer({ port: 0, store: { url: redis.url, namespace: 'failed-start' }, engineOptions: { scenario: 'no-such-scenario' } }),
      ).rejects.toThrow(/unknown scenario/);
    }
    // Redis drops a closed client from CLIENT LIST once it has read the close, which on a loaded
    // machine can take a moment after close() resolves: a leak would stay past the poll.
    await expect.poll(clients).toBeLessThanOrEqual(before);
  });
});
