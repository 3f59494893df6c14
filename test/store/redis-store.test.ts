/**
 * The Redis store against the same KeyValueStore contract suite as the in-memory store, on a
 * real redis-server, plus what only a networked store has: expiry kept by Redis, and failing
 * fast (StoreUnavailableError) while the server is away.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../../src/engine/index.js';
import { openRedisConnection, type RedisConnection } from '../../src/server/redis/redis-connection.js';
import { RedisStore } from '../../src/server/redis/redis-store.js';
import { redisAvailable, startTestRedis, type TestRedis } from '../support/redis-server.js';
import { inTime } from '../support/time-limits.js';
import { storeContractSuite } from './store-contract.suite.js';

let redis: TestRedis;
let connection: RedisConnection;
let stores = 0;

describe.runIf(redisAvailable)('Redis store', () => {
  beforeAll(async () => {
    redis = await startTestRedis();
    connection = await openRedisConnection({ url: redis.url });
  });
  afterAll(async () => {
    await connection?.close();
    await redis?.close();
  });

  storeContractSuite('Redis', {
    async create({ maxEntries }) {
      // A namespace per store: the suite's stores share one server and never see each other.
      stores += 1;
      return new RedisStore<{ n: number }>({ connection, namespace: `suite-${stores}`, name: 'entries', maxEntries, ttlMs: 60_000 });
    },
  });

  it('lets Redis expire entries at their time to live', async () => {
    const store = new RedisStore<{ n: number }>({ connection, namespace: 'ttl', name: 'entries', maxEntries: 10, ttlMs: 150 });
    // Stored (a read-back could come after 150 ms on a busy machine), then gone once Redis's clock
    // passes its time to live: awaited, not slept (issue 43).
    expect((await store.insertIfAbsent('k', { n: 1 })).inserted).toBe(true);
    await expect.poll(() => store.get('k')).toBeUndefined();
    expect((await store.insertIfAbsent('k', { n: 2 })).inserted).toBe(true);
  });

  it('fails at once with StoreUnavailableError while Redis is down, and works again when it is back', async () => {
    const own = await startTestRedis();
    const ownConnection = await openRedisConnection({ url: own.url });
    try {
      const store = new RedisStore<{ n: number }>({
        connection: ownConnection,
        namespace: 'outage',
        name: 'e',
        maxEntries: 10,
        ttlMs: 60_000,
      });
      await store.insertIfAbsent('k', { n: 1 });
      await own.stop({ hard: true });
      const started = performance.now();
      await expect(store.get('k')).rejects.toBeInstanceOf(StoreUnavailableError);
      // The 1 s command deadline, not a hang: how fast is the bench's.
      expect(performance.now() - started).toBeLessThan(inTime(1000));
      await own.start();
      // The client reconnects by itself (every 100 ms at first); no persistence here, so the entry is gone.
      await expect
        .poll(
          async () =>
            await store.get('k').then(
              () => 'up',
              () => 'down',
            ),
          { interval: 100 },
        )
        .toBe('up');
    } finally {
      await ownConnection.close();
      await own.close();
    }
  });
});
