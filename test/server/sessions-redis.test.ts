/**
 * Sessions shared by replicas (docs/assumptions.md A-60): two mock servers on one real Redis
 * (`store`), a session used on one replica is the same session on the other (its scenario,
 * jobs, Idempotency-Keys, journal and reset), and apart from every other session.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningMockServer, startMockServer } from '../../src/server/index.js';
import { evaluationRequest, jsonPost } from '../support/fixtures.js';
import { redisAvailable, startTestRedis, type TestRedis } from '../support/redis-server.js';

let redis: TestRedis;
let one: RunningMockServer;
let two: RunningMockServer;

describe.runIf(redisAvailable)('sessions on replicas sharing one Redis', () => {
  beforeAll(async () => {
    redis = await startTestRedis();
    const options = { port: 0, host: '127.0.0.1', store: { url: redis.url, namespace: 'sessions-test' } };
    one = await startMockServer(options);
    two = await startMockServer(options);
  });
  afterAll(async () => {
    await one?.close({ graceMs: 100 });
    await two?.close({ graceMs: 100 });
    await redis?.close();
  });

  const headers = (session: string) => ({ 'x-mock-session': session });
  const create = async (server: RunningMockServer, session: string, key: string) => {
    const response = await fetch(
      `${server.url}/v0/evaluations`,
      jsonPost(evaluationRequest(), { 'idempotency-key': key, ...headers(session) }),
    );
    return { status: response.status, jobId: ((await response.json()) as { jobId: string }).jobId };
  };
  const settle = async (server: RunningMockServer, session: string, jobId: string) => {
    for (let reads = 0; reads < 10; reads += 1) {
      const response = await fetch(`${server.url}/v0/jobs/${jobId}`, { headers: headers(session) });
      const body = (await response.json()) as { status?: string; evaluation?: string };
      if (response.status !== 200 || !['QUEUED', 'RUNNING'].includes(body.status ?? '')) return { status: response.status, body };
    }
    throw new Error('the job did not settle in 10 reads');
  };
  const control = async (server: RunningMockServer, session: string, path: string, init: RequestInit = {}) => {
    const response = await fetch(`${server.url}/__mock${path}`, { ...init, headers: { ...headers(session), ...(init.headers ?? {}) } });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  it("carries a session's scenario, jobs and reset to the other replica, and no other session's", async () => {
    expect((await control(one, 'red', '/scenario', { ...jsonPost({ name: 'job-failed' }), method: 'PUT' })).status).toBe(200);
    // The other replica meets session red for the first time: it adopts the shared scenario.
    expect((await control(two, 'red', '/scenarios')).body.current).toBe('job-failed');
    expect((await control(two, 'blue', '/scenarios')).body.current).toBe('default');
    const red = await create(two, 'red', 'same-key');
    const blue = await create(one, 'blue', 'same-key');
    expect(blue.jobId).not.toBe(red.jobId);
    expect((await create(one, 'red', 'same-key')).jobId).toBe(red.jobId);
    expect((await settle(one, 'red', red.jobId)).body.status).toBe('FAILED');
    expect((await settle(two, 'blue', blue.jobId)).body).toMatchObject({ status: 'COMPLETE', evaluation: 'PASS' });
    expect((await settle(one, 'blue', red.jobId)).status).toBe(404);

    const journal = await control(one, 'blue', '/journal?operation=createEvaluation');
    expect(journal.body.entries).toEqual([expect.objectContaining({ jobId: blue.jobId, idempotencyKey: 'same-key' })]);

    expect((await control(two, 'red', '/reset', { method: 'POST' })).status).toBe(200);
    expect((await settle(one, 'red', red.jobId)).status).toBe(404);
    await expect.poll(async () => (await control(one, 'red', '/scenarios')).body.current).toBe('default');
    expect((await settle(two, 'blue', blue.jobId)).status).toBe(200);
  });
});
