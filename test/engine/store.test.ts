/**
 * The in-memory store: insert-if-absent, compare-and-set, time to live and oldest-first
 * eviction.
 */
import { expect, it } from 'vitest';
import { MemoryStore, VirtualClock } from '../../src/engine/index.js';

function store(options: { maxEntries?: number; ttlMs?: number } = {}) {
  const clock = new VirtualClock();
  return { clock, store: new MemoryStore<string>({ clock, maxEntries: options.maxEntries ?? 10, ttlMs: options.ttlMs ?? 1000 }) };
}

it('inserts only when absent and returns the entry held', async () => {
  const { store: s } = store();
  expect((await s.insertIfAbsent('k', 'a')).inserted).toBe(true);
  const second = await s.insertIfAbsent('k', 'b');
  expect(second).toEqual({ inserted: false, entry: expect.objectContaining({ value: 'a', version: 1 }) });
});

it('replaces a value only at the expected version', async () => {
  const { store: s } = store();
  await s.insertIfAbsent('k', 'a');
  expect(await s.compareAndSet('k', 2, 'x')).toBeUndefined();
  expect(await s.compareAndSet('k', 1, 'b')).toMatchObject({ value: 'b', version: 2 });
  expect(await s.compareAndSet('k', 1, 'c')).toBeUndefined();
  expect((await s.get('k'))?.value).toBe('b');
});

it('forgets an entry when its time to live is over, and the key can be inserted again', async () => {
  const { store: s, clock } = store({ ttlMs: 1000 });
  await s.insertIfAbsent('k', 'a');
  clock.advance(999);
  expect((await s.get('k'))?.value).toBe('a');
  clock.advance(1);
  expect(await s.get('k')).toBeUndefined();
  expect((await s.insertIfAbsent('k', 'b')).inserted).toBe(true);
});

it('evicts the oldest entry first when full', async () => {
  const { store: s } = store({ maxEntries: 3 });
  for (const key of ['a', 'b', 'c', 'd']) await s.insertIfAbsent(key, key);
  expect((await s.entries()).map(([key]) => key)).toEqual(['b', 'c', 'd']);
  expect(s.size).toBe(3);
});
