/**
 * The shared behaviour suite, unchanged, against the node:http mock server keeping its state
 * in a real Redis (`store`), each target in its own namespace.
 */
import { afterAll, beforeAll, describe } from 'vitest';
import { createMockEngine, VirtualClock } from '../../src/engine/index.js';
import { startMockServer } from '../../src/server/mock-server.js';
import { openSharedState } from '../../src/server/redis/shared-state.js';
import { behaviourSuite } from '../engine/behaviour.suite.js';
import { redisAvailable, startTestRedis, type TestRedis } from '../support/redis-server.js';

let redis: TestRedis;
let targets = 0;

describe.runIf(redisAvailable)('behaviour on a Redis-backed mock', () => {
  beforeAll(async () => {
    redis = await startTestRedis();
  });
  afterAll(async () => {
    await redis?.close();
  });

  behaviourSuite({
    name: 'node:http mock server on Redis',
    async create(options = {}) {
      targets += 1;
      const clock = new VirtualClock({ start: Date.UTC(2026, 10, 22) });
      // The suite moves a virtual clock, so the engine is built here with the shared state's stores.
      const shared = await openSharedState({
        url: redis.url,
        namespace: `behaviour-${targets}`,
        clock,
        ...(options.limits ? { limits: options.limits } : {}),
      });
      const engine = createMockEngine({ ...options, clock, ...shared.engineOptions });
      await engine.control.synced();
      const server = await startMockServer({ engine, port: 0, host: '127.0.0.1' });
      return {
        fetch: (path, init) => fetch(new URL(path, server.url), init),
        control: engine.control,
        clock,
        close: async () => {
          await server.close({ graceMs: 100 });
          await shared.close();
        },
      };
    },
  });
});
