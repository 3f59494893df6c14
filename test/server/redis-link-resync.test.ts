/**
 * The link's resync against a change heard while it reads: the read and the channel are two
 * connections, so the state read may be older than an announcement that arrives first. A fake
 * connection holds each read until the test lets it go, so the order is the test's, not the
 * machine's (the race store-recovery.test.ts hit under load).
 */
import { describe, expect, it } from 'vitest';
import type { SharedScenarioState } from '../../src/engine/replica-link.js';
import type { RedisConnection } from '../../src/server/redis/redis-connection.js';
import { createRedisLink, newReplicaId } from '../../src/server/redis/redis-link.js';

function fakeConnections() {
  const reads: Array<(reply: unknown) => void> = [];
  let hear: ((message: string) => void) | undefined;
  const connection = {
    command: async () => 'OK',
    run: () => new Promise((resolve) => reads.push(resolve)),
    subscribe: async (_channel: string, listener: (message: string) => void) => {
      hear = listener;
    },
    unsubscribe: async () => undefined,
    maxReplyBytes: 1024 * 1024,
    commandsSent: 0,
    commandCounts: () => ({}),
    close: async () => undefined,
  } as unknown as RedisConnection;
  return { connection, reads, announce: (message: string) => hear?.(message) };
}

const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('createRedisLink resync', () => {
  it('reads the state again when a change is heard while it reads, so the older state does not undo it', async () => {
    const { connection, reads, announce } = fakeConnections();
    const replicaId = newReplicaId();
    const link = createRedisLink({ connection, subscriber: connection, namespace: 'resync', replicaId, maxRegistered: 8 });
    const adopted: Array<SharedScenarioState | undefined> = [];
    const changes: number[] = [];
    link.subscribe({ change: (change) => changes.push(change.epoch), resync: (state) => adopted.push(state) });
    await link.start();

    link.resync();
    expect(reads).toHaveLength(1);
    // Another replica puts 'fail' in force (epoch 1) while the first read is on its way back with epoch 0.
    announce(`1|${newReplicaId()}|${JSON.stringify({ kind: 'use', scenario: 'fail' })}`);
    reads[0]!(['0', '', []]);
    await flush();
    expect(reads).toHaveLength(2);
    reads[1]!(['1', 'fail', []]);
    await flush();

    // The last word is the state read after the change: 'fail' at epoch 1, never the older default.
    expect(adopted.at(-1)).toEqual({ epoch: 1, inForce: 'fail', registered: [] });
    expect(changes).toEqual([]);
    link.close();
  });

  it('applies a change heard when no read is under way at once, without reading the state', async () => {
    const { connection, reads, announce } = fakeConnections();
    const link = createRedisLink({ connection, subscriber: connection, namespace: 'resync', replicaId: newReplicaId(), maxRegistered: 8 });
    const changes: number[] = [];
    link.subscribe({ change: (change) => changes.push(change.epoch), resync: () => undefined });
    await link.start();
    announce(`1|${newReplicaId()}|${JSON.stringify({ kind: 'use', scenario: 'fail' })}`);
    expect(changes).toEqual([1]);
    expect(reads).toHaveLength(0);
    link.close();
  });
});
