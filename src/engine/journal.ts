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

export class Journal {
  private readonly list: JournalEntry[] = [];

  constructor(private readonly capacity: number) {}

  record(entry: JournalEntry): void {
    this.list.push(entry);
    if (this.list.length > this.capacity) this.list.splice(0, this.list.length - this.capacity);
  }

  entries(): readonly JournalEntry[] {
    return [...this.list];
  }

  clear(): void {
    this.list.length = 0;
  }
}
