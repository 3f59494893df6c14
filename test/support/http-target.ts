/**
 * The HTTP target: the engine behind the node:http mock server on a random loopback port,
 * reached with the global fetch. The test keeps the engine's virtual clock and control.
 */
import { createMockEngine, VirtualClock } from '../../src/engine/index.js';
import { startMockServer } from '../../src/server/mock-server.js';
import type { TargetFactory } from './targets.js';

export const httpTarget: TargetFactory = {
  name: 'node:http mock server',
  async create(options = {}) {
    const clock = new VirtualClock({ start: Date.UTC(2026, 10, 22) });
    const engine = createMockEngine({ ...options, clock });
    const server = await startMockServer({ engine, port: 0, host: '127.0.0.1' });
    return {
      fetch: (path, init) => fetch(new URL(path, server.url), init),
      control: engine.control,
      clock,
      close: () => server.close({ graceMs: 100 }),
    };
  },
};
