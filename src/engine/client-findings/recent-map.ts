/**
 * @module engine/client-findings/recent-map
 * A Map that keeps only its newest entries: what the judge and coverage remember per caller or
 * per job must stay bounded however many callers and jobs a hostile client invents.
 */

export class RecentMap<Key, Value> {
  private readonly map = new Map<Key, Value>();

  constructor(private readonly options: { readonly maxEntries: number }) {}

  get(key: Key): Value | undefined {
    return this.map.get(key);
  }

  /** Sets `key` as the newest entry, dropping the oldest past `maxEntries`. */
  set(key: Key, value: Value): void {
    // Deleting first moves the key to the end: Map iterates in insertion order.
    this.map.delete(key);
    this.map.set(key, value);
    while (this.map.size > this.options.maxEntries) {
      const oldest = this.map.keys().next();
      if (oldest.done) break;
      this.map.delete(oldest.value);
    }
  }

  delete(key: Key): void {
    this.map.delete(key);
  }

  clear(): void {
    this.map.clear();
  }

  get size(): number {
    return this.map.size;
  }
}
