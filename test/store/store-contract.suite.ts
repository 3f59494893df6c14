/**
 * What every KeyValueStore must do for the engine, whatever keeps it: the in-memory store and
 * the Redis store run this same suite (test/store/*.test.ts).
 */
import { describe, expect, it } from 'vitest';
import type { KeyValueStore } from '../../src/engine/index.js';

export interface StoreUnderTest {
  /** A fresh, empty store holding at most `maxEntries`. */
  create(options: { maxEntries: number }): Promise<KeyValueStore<{ n: number }>>;
}

export function storeContractSuite(name: string, subject: StoreUnderTest): void {
  describe(`KeyValueStore contract: ${name}`, () => {
    it('inserts only when absent and returns the entry held', async () => {
      const store = await subject.create({ maxEntries: 10 });
      expect(await store.insertIfAbsent('k', { n: 1 })).toMatchObject({ inserted: true, entry: { value: { n: 1 }, version: 1 } });
      expect(await store.insertIfAbsent('k', { n: 2 })).toMatchObject({ inserted: false, entry: { value: { n: 1 }, version: 1 } });
      expect((await store.get('k'))?.value).toEqual({ n: 1 });
      expect(await store.get('missing')).toBeUndefined();
    });

    it('replaces a value only at the expected version, one winner among concurrent writers', async () => {
      const store = await subject.create({ maxEntries: 10 });
      await store.insertIfAbsent('k', { n: 0 });
      const attempts = await Promise.all(Array.from({ length: 20 }, (_, n) => store.compareAndSet('k', 1, { n })));
      expect(attempts.filter((entry) => entry !== undefined)).toHaveLength(1);
      expect((await store.get('k'))?.version).toBe(2);
      expect(await store.compareAndSet('missing', 1, { n: 1 })).toBeUndefined();
    });

    it('makes exactly one insert win among concurrent ones', async () => {
      const store = await subject.create({ maxEntries: 10 });
      const results = await Promise.all(Array.from({ length: 50 }, (_, n) => store.insertIfAbsent('same', { n })));
      const winners = results.filter((result) => result.inserted);
      expect(winners).toHaveLength(1);
      for (const result of results) expect(result.entry.value).toEqual(winners[0]!.entry.value);
    });

    it('evicts the oldest entry first when full, and deletes', async () => {
      const store = await subject.create({ maxEntries: 3 });
      for (const key of ['a', 'b', 'c', 'd']) await store.insertIfAbsent(key, { n: 1 });
      expect(await store.get('a')).toBeUndefined();
      expect((await store.page({ limit: 10 })).entries.map(([key]) => key)).toEqual(['b', 'c', 'd']);
      await store.delete('c');
      expect((await store.page({ limit: 10 })).entries.map(([key]) => key)).toEqual(['b', 'd']);
    });

    it('pages oldest first with cursors that reach every entry once, and refuses a cursor it never gave', async () => {
      const store = await subject.create({ maxEntries: 100 });
      const keys = Array.from({ length: 25 }, (_, n) => `key-${n}`);
      for (const key of keys) await store.insertIfAbsent(key, { n: 1 });
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await store.page({ limit: 10, ...(cursor === undefined ? {} : { cursor }) });
        seen.push(...page.entries.map(([key]) => key));
        cursor = page.next;
      } while (cursor !== undefined);
      expect(seen).toEqual(keys);
      await expect(store.page({ limit: 10, cursor: '999999' })).rejects.toThrow(TypeError);
      await expect(store.page({ limit: 10, cursor: 'abc' })).rejects.toThrow(TypeError);
    });

    it('gives no next cursor on the last page, also when the entries after it were deleted', async () => {
      const store = await subject.create({ maxEntries: 10 });
      for (const key of ['a', 'b', 'c']) await store.insertIfAbsent(key, { n: 1 });
      await store.delete('c');
      const page = await store.page({ limit: 2 });
      expect(page.entries.map(([key]) => key)).toEqual(['a', 'b']);
      expect(page.next).toBeUndefined();
    });

    it('ends a page before it passes maxBytes, with at least one entry', async () => {
      const store = await subject.create({ maxEntries: 100 });
      for (let n = 0; n < 10; n += 1) await store.insertIfAbsent(`k${n}`, { n });
      const page = await store.page({ limit: 100, maxBytes: 1 });
      expect(page.entries).toHaveLength(1);
      expect(page.next).toBeDefined();
    });

    it('clears everything', async () => {
      const store = await subject.create({ maxEntries: 100 });
      for (let n = 0; n < 20; n += 1) await store.insertIfAbsent(`k${n}`, { n });
      await store.clear();
      expect((await store.page({ limit: 100 })).entries).toEqual([]);
      expect((await store.insertIfAbsent('k1', { n: 9 })).inserted).toBe(true);
    });
  });
}
