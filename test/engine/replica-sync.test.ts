/**
 * `synced()` on an engine sharing its scenarios through a link whose channel delivers later than
 * the store answers, as Redis's subscriber connection can: once `synced()` resolves, the
 * replica's own changes have come back, and an older echo can no longer undo a newer change.
 */
import { describe, expect, it, vi } from 'vitest';
import {
  createMockEngine,
  type DeliveredChange,
  type ReplicaChange,
  type ReplicaLink,
  type SharedScenarioState,
} from '../../src/engine/index.js';
import { inTime } from '../support/time-limits.js';

type Listeners = Parameters<ReplicaLink['subscribe']>[0];

/**
 * A one-replica store the test drives: each publish waits for `reply(epoch)`, and the channel
 * delivers a change only at `deliver(epoch)`, so any order of replies and echoes can be staged.
 */
function stagedLink() {
  let epoch = 0;
  let listeners: Listeners | undefined;
  const replies = new Map<number, () => void>();
  const changes = new Map<number, DeliveredChange>();
  let resyncs = 0;
  const link: ReplicaLink = {
    load: async () => undefined as SharedScenarioState | undefined,
    publish(change: ReplicaChange) {
      epoch += 1;
      const given = epoch;
      changes.set(given, { ...change, epoch: given } as DeliveredChange);
      return new Promise<number>((resolve) => replies.set(given, () => resolve(given)));
    },
    subscribe(given) {
      listeners = given;
    },
    requestResync() {
      resyncs += 1;
      listeners?.resync({ epoch, registered: [] });
    },
    countFault: async () => 1,
  };
  return {
    link,
    published: () => epoch,
    reply: (given: number) => replies.get(given)?.(),
    deliver: (given: number) => listeners?.change(changes.get(given)!),
    resyncs: () => resyncs,
  };
}

const names = (engine: ReturnType<typeof createMockEngine>) => engine.control.scenarios().map((scenario) => scenario.name);

describe('synced() on a replica whose channel lags the store', () => {
  it('waits for its own changes to come back, so a late register cannot undo a reset', async () => {
    const store = stagedLink();
    const engine = createMockEngine({ replicaLink: store.link });
    await engine.control.synced();
    engine.control.registerScenario({ name: 'mine' });
    store.reply(1);
    const resetting = engine.control.reset();
    await vi.waitFor(() => expect(store.published()).toBe(2), { timeout: inTime() });
    // The register's echo arrives after the reset was made here, and before the reset's own.
    store.deliver(1);
    store.reply(2);
    let done = false;
    void resetting.then(() => (done = true));
    // Every turn of work the reset could do without its own echo, done: it still waits.
    await new Promise((resolve) => setImmediate(resolve));
    expect(done).toBe(false);
    store.deliver(2);
    await resetting;
    expect(names(engine)).not.toContain('mine');
    expect(names(engine)).toEqual(expect.arrayContaining(['default', 'slow-pass']));
    expect(store.resyncs()).toBe(0);
  });

  it('stops waiting when the channel is silent, and reads the shared state again instead', async () => {
    const store = stagedLink();
    const engine = createMockEngine({ replicaLink: store.link });
    await engine.control.synced();
    engine.control.registerScenario({ name: 'mine' });
    store.reply(1);
    await engine.control.synced();
    expect(store.resyncs()).toBe(1);
    // The store's word (nothing registered) is taken.
    expect(names(engine)).not.toContain('mine');
  });

  it('resolves at once when its changes were heard already', async () => {
    const store = stagedLink();
    const engine = createMockEngine({ replicaLink: store.link });
    engine.control.registerScenario({ name: 'mine' });
    store.deliver(1);
    store.reply(1);
    await engine.control.synced();
    expect(store.resyncs()).toBe(0);
    expect(names(engine)).toContain('mine');
  });
});
