/**
 * @module cli/buffered-lines
 * Request log lines written in batches. On Linux, a write to a pipe or a file from Node is a
 * synchronous system call, and one per request cost the mock a large share of its throughput
 * with logs on (docs/performance.md). Lines are gathered and written together a few
 * milliseconds later, or at once when the batch passes `maxBytes`; `flush()` writes what is
 * pending, and the command calls it before every other message and before it exits, so no line
 * is lost or printed out of order.
 */

export interface LineBuffer {
  /** Queues one line (without its newline). */
  add(line: string): void;
  /** Writes every queued line now. */
  flush(): void;
}

export interface LineBufferOptions {
  readonly write: (text: string) => void;
  /** Write at once when the queued text reaches this many characters. Default 64 KiB. */
  readonly maxChars?: number;
  /** Write at most this long after the first queued line. Default 10 ms: too short for a person to notice. */
  readonly flushMs?: number;
}

export function createLineBuffer(options: LineBufferOptions): LineBuffer {
  const maxChars = options.maxChars ?? 64 * 1024;
  const flushMs = options.flushMs ?? 10;
  let pending = '';
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flush = () => {
    if (timer !== undefined) {
      clearTimeout(timer);
      timer = undefined;
    }
    if (pending === '') return;
    const text = pending;
    pending = '';
    options.write(text);
  };
  return {
    add(line) {
      pending += `${line}\n`;
      if (pending.length >= maxChars) flush();
      else if (timer === undefined) timer = setTimeout(flush, flushMs);
    },
    flush,
  };
}
