/**
 * Sessions on a shared Redis end cleanly (docs/assumptions.md A-60): every key a session
 * writes carries a time to live (none is left for ever), renewed as the session is used, and
 * `GET /__mock/sessions` on any replica lists the sessions of every replica.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningMockServer, startMockServer } from '../../src/server/index.js';
import { openRedisConnection, type RedisConnection } from '../../src/server/redis/redis-connection.js';
import { evaluationRequest, jsonPost } from '../support/fixtures.js';
import { redisAvailable, startTestRedis, type TestRedis } from '../support/redis-server.js';

const namespace = 'expiry-test';
const hour = 60 * 60 * 1000;
let redis: TestRedis;
let connection: RedisConnection;
let one: RunningMockServer;
let two: RunningMockServer;

describe.runIf(redisAvailable)('session keys on a shared Redis', () => {
  beforeAll(async () => {
    redis = await startTestRedis();
    connection = await openRedisConnection({ url: redis.url });
    const options = {
      port: 0,
      host: '127.0.0.1',
      store: { url: redis.url, namespace },
      engineOptions: { limits: { jobTtlMs: 2 * hour, idempotencyKeyTtlMs: 3 * hour, sessionIdleMs: hour } },
    };
    one = await startMockServer(options);
    two = await startMockServer(options);
  });
  afterAll(async () => {
    await one?.close({ graceMs: 100 });
    await two?.close({ graceMs: 100 });
    await connection?.close();
    await redis?.close();
  });

  const inSession = (session: string, init: RequestInit = {}): RequestInit => ({
    ...init,
    headers: { ...((init.headers as Record<string, string>) ?? {}), 'x-mock-session': session },
  });

  /** Everything one session does: a scenario, a fault counted, jobs, keys, reads, the journal, a reset. */
  async function useSession(server: RunningMockServer, session: string): Promise<void> {
    const put = await fetch(`${server.url}/__mock/scenario`, inSession(session, { ...jsonPost({ name: 'flaky-503' }), method: 'PUT' }));
    expect(put.status).toBe(200);
    for (let index = 0; index < 3; index += 1) {
      const created = await fetch(
        `${server.url}/v0/evaluations`,
        inSession(session, jsonPost(evaluationRequest(), { 'idempotency-key': `${session}-${index}` })),
      );
      const body = (await created.json()) as { jobId?: string };
      if (body.jobId) await (await fetch(`${server.url}/v0/jobs/${body.jobId}`, inSession(session))).arrayBuffer();
    }
    await (await fetch(`${server.url}/__mock/journal`, inSession(session))).arrayBuffer();
  }

  async function keysOf(pattern: string): Promise<string[]> {
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, batch] = (await connection.command(['SCAN', cursor, 'MATCH', pattern, 'COUNT', 1000])) as [string, string[]];
      cursor = next;
      keys.push(...batch);
    } while (cursor !== '0');
    return keys;
  }

  it('gives every key of a session a time to live, no longer than its longest-lived entry', async () => {
    const sessions = Array.from({ length: 20 }, (_, index) => `expiring-${index}`);
    for (const [index, session] of sessions.entries()) await useSession(index % 2 === 0 ? one : two, session);
    // The journal is written in batches: wait until every session's has landed.
    await expect.poll(async () => (await keysOf(`{${namespace}~*}:journal`)).length).toBe(sessions.length);
    const keys = await keysOf(`{${namespace}~*`);
    const kinds = new Set(
      keys.map((key) =>
        key
          .replace(/^\{[^}]*\}:/, '')
          .replace(/:entry:[\s\S]*$/, ':entry')
          .replace(/^fault:[\s\S]*$/, 'fault'),
      ),
    );
    // Jobs, keys and their indexes and sequences, the scenario state, the journal (fault counters carry a day's TTL of their own).
    expect([...kinds].filter((kind) => kind !== 'fault').sort()).toEqual([
      'idempotency-keys:entry',
      'idempotency-keys:index',
      'idempotency-keys:sequence',
      'jobs:entry',
      'jobs:index',
      'jobs:sequence',
      'journal',
      'scenario:epoch',
      'scenario:in-force',
    ]);
    const withoutTtl: string[] = [];
    for (const key of keys) {
      const ttl = Number(await connection.command(['PTTL', key]));
      if (!(ttl > 0 && ttl <= 24 * hour)) withoutTtl.push(`${key} ${ttl}`);
    }
    expect(withoutTtl).toEqual([]);
    // The registry of every replica's sessions expires too.
    for (const key of [`{${namespace}}:sessions`, `{${namespace}}:sessions:by-use`]) {
      expect(Number(await connection.command(['PTTL', key]))).toBeGreaterThan(0);
    }
  });

  it("renews a session's keys when it is used again", async () => {
    await useSession(one, 'renewed');
    await expect.poll(async () => Number(await connection.command(['PTTL', `{${namespace}~renewed}:journal`]))).toBeGreaterThan(0);
    const epochKey = `{${namespace}~renewed}:scenario:epoch`;
    await connection.command(['PEXPIRE', epochKey, 60_000]);
    // A new replica meeting the session for the first time uses it: the keys are renewed to the session's time to live.
    await (await fetch(`${two.url}/health`, inSession('renewed'))).arrayBuffer();
    await expect.poll(async () => Number(await connection.command(['PTTL', epochKey]))).toBeGreaterThan(60 * 60 * 1000);
  });

  it('lists the sessions of every replica, on every replica', async () => {
    await (await fetch(`${one.url}/health`, inSession('only-on-one'))).arrayBuffer();
    await (await fetch(`${two.url}/health`, inSession('only-on-two'))).arrayBuffer();
    await (await fetch(`${two.url}/health`, inSession('only-on-two'))).arrayBuffer();
    for (const server of [one, two]) {
      await expect
        .poll(async () => {
          const listing = (await (await fetch(`${server.url}/__mock/sessions`)).json()) as { sessions: { name: string }[] };
          return listing.sessions.map((session) => session.name);
        })
        .toEqual(expect.arrayContaining(['default', 'only-on-one', 'only-on-two', 'expiring-0', 'expiring-1']));
      const listing = (await (await fetch(`${server.url}/__mock/sessions`)).json()) as { sessions: { name: string; calls: number }[] };
      expect(listing.sessions[0]!.name).toBe('default');
      expect(new Set(listing.sessions.map((session) => session.name)).size).toBe(listing.sessions.length);
    }
  });
});
