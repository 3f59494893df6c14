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
   * At most `limit` entries after the one numbered `cursor` (from the oldest kept when there
   * is none, or when the cursor's entry has since been dropped), oldest first.
   */
  page(options: { readonly cursor?: number; readonly limit: number }): JournalPage {
    if (this.count === 0) return { entries: [] };
    const oldestSeq = this.at(0).seq;
    const first = Math.max(0, (options.cursor ?? 0) - oldestSeq + 1);
    const entries: JournalEntry[] = [];
    for (let index = first; index < this.count && entries.length < options.limit; index += 1) entries.push(this.at(index));
    const last = entries.at(-1);
    return last && first + entries.length < this.count ? { entries, next: String(last.seq) } : { entries };
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
