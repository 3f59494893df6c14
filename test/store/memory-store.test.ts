/** The in-memory store against the KeyValueStore contract suite. */
import { MemoryStore, VirtualClock } from '../../src/engine/index.js';
import { storeContractSuite } from './store-contract.suite.js';

storeContractSuite('in memory', {
  async create({ maxEntries }) {
    return new MemoryStore<{ n: number }>({ clock: new VirtualClock(), maxEntries, ttlMs: 60_000 });
  },
});
