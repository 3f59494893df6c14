/**
 * The in-process target: the engine called directly with Fetch Requests.
 */
import { createMockEngine, VirtualClock } from '../../src/engine/index.js';
import type { TargetFactory } from './targets.js';

export const inProcessTarget: TargetFactory = {
  name: 'in-process engine',
  async create(options = {}) {
    const clock = new VirtualClock({ start: Date.UTC(2026, 10, 22) });
    const engine = createMockEngine({ ...options, clock });
    return {
      fetch: (path, init) => engine.handle(new Request(new URL(path, 'http://mock.test'), init)),
      control: engine.control,
      clock,
      close: async () => undefined,
    };
  },
};
