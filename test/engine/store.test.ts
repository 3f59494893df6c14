/**
 * The in-memory store: insert-if-absent, compare-and-set, time to live and oldest-first
 * eviction.
 */
import { expect, it } from 'vitest';
import { MemoryStore, VirtualClock } from '../../src/engine/index.js';

function store(options: { maxEntries?: number; ttlMs?: number; maxBytes?: number } = {}) {
  const clock = new VirtualClock();
  return {
    clock,
    store: new MemoryStore<string>({
      clock,
      maxEntries: options.maxEntries ?? 10,
      ttlMs: options.ttlMs ?? 1000,
      // One byte per character of the value, so budgets read plainly in the tests.
      ...(options.maxBytes === undefined ? {} : { maxBytes: options.maxBytes, sizeOf: (_key: string, value: string) => value.length }),
    }),
  };
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

it('evicts the oldest entries when an insert would pass the byte budget', async () => {
  const { store: s } = store({ maxBytes: 10 });
  await s.insertIfAbsent('a', 'xxxx');
  await s.insertIfAbsent('b', 'xxxx');
  await s.insertIfAbsent('c', 'xxxx');
  expect((await s.entries()).map(([key]) => key)).toEqual(['b', 'c']);
  expect(s.byteSize).toBe(8);
});

it('evicts older entries when a value grows past the budget, never the one that grew', async () => {
  const { store: s } = store({ maxBytes: 10 });
  await s.insertIfAbsent('a', 'xx');
  await s.insertIfAbsent('b', 'xx');
  await s.compareAndSet('b', 1, 'xxxxxxxxxx');
  expect((await s.entries()).map(([key]) => key)).toEqual(['b']);
  expect(s.byteSize).toBe(10);
});

it('pages entries oldest first; a cursor survives the deletion of its entry', async () => {
  const { store: s } = store();
  for (const key of ['a', 'b', 'c', 'd', 'e']) await s.insertIfAbsent(key, key);
  const first = await s.page({ limit: 2 });
  expect(first.entries.map(([key]) => key)).toEqual(['a', 'b']);
  await s.delete('b');
  const second = await s.page({ limit: 2, cursor: first.next! });
  expect(second.entries.map(([key]) => key)).toEqual(['c', 'd']);
  const last = await s.page({ limit: 2, cursor: second.next! });
  expect(last).toEqual({ entries: [['e', expect.objectContaining({ value: 'e' })]] });
  await expect(s.page({ limit: 2, cursor: '999' })).rejects.toThrow(TypeError);
});

it('ends a page before it passes maxBytes, but always gives at least one entry', async () => {
  const { store: s } = store({ maxBytes: 100 });
  for (const key of ['a', 'b', 'c']) await s.insertIfAbsent(key, 'x'.repeat(30));
  expect((await s.page({ limit: 10, maxBytes: 70 })).entries.map(([key]) => key)).toEqual(['a', 'b']);
  expect((await s.page({ limit: 10, maxBytes: 1 })).entries.map(([key]) => key)).toEqual(['a']);
});
