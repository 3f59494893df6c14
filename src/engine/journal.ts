/**
 * @module engine/journal
 * The request journal: what the engine answered, in order, for assertions in tests and for
 * the control API. Bounded in entries and in bytes, so a long-running mock does not grow
 * without limit, and read in pages, so a listing never builds one huge answer.
 */
import { journalEntryBytes } from './sizes.js';

export interface JournalEntry {
  /** The entry's number: 1 for the first request since the engine started, one more per request. */
  readonly seq: number;
  /** Engine clock time of the request. */
  readonly time: number;
  readonly method: string;
  /** The request path, cut to 1,024 characters (a longer one is no path of the contract). */
  readonly path: string;
  /** The operation matched, if any. */
  readonly operationId?: string;
  readonly status: number;
  /** The scenario the call was answered under. */
  readonly scenario: string;
  /** Error code, for error answers. */
  readonly code?: string;
  /** True when a scenario fault forced the answer. */
  readonly forced: boolean;
  readonly jobId?: string;
  /** The Idempotency-Key a createEvaluation carried, cut to 255 characters (request verification, A-61). */
  readonly idempotencyKey?: string;
  /** The job's state the answer carried (createEvaluation's 202, getJob's 200): the inspector's timeline. */
  readonly jobStatus?: string;
  readonly durationMs: number;
  /**
   * What happened, for an entry that is not a request: a scenario file reloaded by
   * `mock --watch` is recorded with method RELOAD, the file as its path, and this note.
   */
  readonly note?: string;
}

export interface JournalPage {
  readonly entries: readonly JournalEntry[];
  /** The cursor of the next page; absent when this page reaches the newest entry. */
  readonly next?: string;
}

/**
 * Which entries a reader wants (request verification: `GET /__mock/journal?…`,
 * `control.calls(filter)`, A-61). Every field given must match; none given matches all.
 */
export interface JournalFilter {
  /** The operation matched (`operationId`). */
  readonly operation?: string;
  readonly status?: number;
  readonly idempotencyKey?: string;
  readonly jobId?: string;
  /** Entries recorded at or after this engine-clock time (milliseconds). */
  readonly since?: number;
}

/** Which end a page starts from: `oldest` (the journal's order, the default) or `newest`. */
export type JournalOrder = 'oldest' | 'newest';

/** Whether `entry` is one `filter` asks for: the one rule the in-memory and the shared journal both apply. */
export function journalMatches(entry: JournalEntry, filter: JournalFilter | undefined): boolean {
  if (!filter) return true;
  if (filter.operation !== undefined && entry.operationId !== filter.operation) return false;
  if (filter.status !== undefined && entry.status !== filter.status) return false;
  if (filter.idempotencyKey !== undefined && entry.idempotencyKey !== filter.idempotencyKey) return false;
  if (filter.jobId !== undefined && entry.jobId !== filter.jobId) return false;
  if (filter.since !== undefined && !(entry.time >= filter.since)) return false;
  return true;
}

/** Longest path the journal keeps; request targets can be as long as the server's header limit. */
export const journalPathLength = 1024;

/**
 * A ring of `capacity` slots: recording overwrites the oldest entry in place, where an array
 * trimmed from the front would move every entry on every request once full. Entries are
 * numbered in order, so a page seeks to its cursor by subtraction rather than by a scan.
 */
export class Journal {
  private readonly ring: JournalEntry[] = [];
  private readonly sizes: number[] = [];
  /** The slot of the oldest entry. */
  private start = 0;
  private count = 0;
  private bytes = 0;
  private seqCounter = 1;

  constructor(private readonly options: { readonly capacity: number; readonly maxBytes: number }) {}

  /** Records an entry, numbering it; the oldest entries make room, by count and by bytes. Returns it as kept. */
  record(entry: Omit<JournalEntry, 'seq'>): JournalEntry | undefined {
    const { capacity, maxBytes } = this.options;
    if (capacity <= 0) return undefined;
    const path = entry.path.length > journalPathLength ? `${entry.path.slice(0, journalPathLength - 1)}…` : entry.path;
    const numbered: JournalEntry = { seq: this.seqCounter++, ...entry, path };
    const size = journalEntryBytes(numbered);
    while (this.count > 0 && (this.count >= capacity || this.bytes + size > maxBytes)) this.dropOldest();
    const slot = (this.start + this.count) % capacity;
    this.ring[slot] = numbered;
    this.sizes[slot] = size;
    this.count += 1;
    this.bytes += size;
    return numbered;
  }

  private dropOldest(): void {
    this.bytes -= this.sizes[this.start]!;
    this.start = (this.start + 1) % this.options.capacity;
    this.count -= 1;
  }

  private at(index: number): JournalEntry {
    return this.ring[(this.start + index) % this.options.capacity]!;
  }

  /** Every entry kept, oldest first. */
  entries(): readonly JournalEntry[] {
    const all: JournalEntry[] = [];
    for (let index = 0; index < this.count; index += 1) all.push(this.at(index));
    return all;
  }

  /**
   * At most `limit` entries that match `filter`, past the one numbered `cursor`: oldest first
   * (after it; from the oldest kept when there is none, or when the cursor's entry has since
   * been dropped), or with `order: 'newest'` newest first (before it). `next` is given only
   * when another matching entry lies beyond the page, so a reader never fetches an empty page.
   */
  page(options: {
    readonly cursor?: number;
    readonly limit: number;
    readonly filter?: JournalFilter;
    readonly order?: JournalOrder;
  }): JournalPage {
    if (this.count === 0) return { entries: [] };
    const oldestSeq = this.at(0).seq;
    const newest = options.order === 'newest';
    const step = newest ? -1 : 1;
    let index = newest
      ? Math.min(this.count - 1, options.cursor === undefined ? this.count - 1 : options.cursor - oldestSeq - 1)
      : Math.max(0, (options.cursor ?? 0) - oldestSeq + 1);
    const entries: JournalEntry[] = [];
    for (; index >= 0 && index < this.count; index += step) {
      const entry = this.at(index);
      if (!journalMatches(entry, options.filter)) continue;
      if (entries.length === options.limit) return { entries, next: String(entries.at(-1)!.seq) };
      entries.push(entry);
    }
    return { entries };
  }

  /** Numbers go on after a clear, so a cursor from before it never points into new entries. */
  clear(): void {
    this.ring.length = 0;
    this.sizes.length = 0;
    this.start = 0;
    this.count = 0;
    this.bytes = 0;
  }

  /** The number the next entry will get: every cursor a page gives is below it. */
  get nextSeq(): number {
    return this.seqCounter;
  }

  /** Estimated bytes held. */
  get byteSize(): number {
    return this.bytes;
  }
}
