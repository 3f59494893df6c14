/**
 * @module engine/journal
 * The request journal: what the engine answered, in order, for assertions in tests and for
 * the control API. Bounded, so a long-running mock does not grow without limit.
 */

export interface JournalEntry {
  /** Engine clock time of the request. */
  readonly time: number;
  readonly method: string;
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
  readonly durationMs: number;
}

/**
 * A ring of `capacity` slots: recording overwrites the oldest entry in place, where an array
 * trimmed from the front would move every entry on every request once full.
 */
export class Journal {
  private readonly ring: JournalEntry[] = [];
  /** The slot the next entry goes to once the ring is full (and so the oldest entry's slot). */
  private next = 0;

  constructor(private readonly capacity: number) {}

  record(entry: JournalEntry): void {
    if (this.capacity <= 0) return;
    if (this.ring.length < this.capacity) {
      this.ring.push(entry);
      return;
    }
    this.ring[this.next] = entry;
    this.next = (this.next + 1) % this.capacity;
  }

  /** Oldest first. */
  entries(): readonly JournalEntry[] {
    return [...this.ring.slice(this.next), ...this.ring.slice(0, this.next)];
  }

  clear(): void {
    this.ring.length = 0;
    this.next = 0;
  }
}
