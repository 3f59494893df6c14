/**
 * The shared behaviour suite, unchanged, against an engine whose contract was built from
 * spec/openapi.yaml at start (contractFromDocument) instead of the hand-written schemas: the
 * mock answers the same, message for message, whichever way its contract was made.
 */

import { contractFromDocument } from '../../src/engine/engine-contract.js';
import { createMockEngine, VirtualClock } from '../../src/engine/index.js';
import { bundledContract } from '../support/contract.js';
import type { TargetFactory } from '../support/targets.js';
import { behaviourSuite } from './behaviour.suite.js';

const fromDocument: TargetFactory = {
  name: 'engine from the bundled document',
  async create(options = {}) {
    const clock = new VirtualClock({ start: Date.UTC(2026, 10, 22) });
    const spec = contractFromDocument((await bundledContract()).document);
    const engine = createMockEngine({ ...options, clock, spec });
    return {
      fetch: (path, init) => engine.handle(new Request(new URL(path, 'http://mock.test'), init)),
      control: engine.control,
      clock,
      close: async () => undefined,
    };
  },
};

behaviourSuite(fromDocument);
