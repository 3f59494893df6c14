/**
 * @module test/support/fake-time
 * Runs work on vitest's fake clock to its end: time moves only when this moves it, a millisecond
 * at a time, so a deadline and the work racing it are ordered by fake time alone, the same on an
 * idle machine and a loaded one (issue 43). The caller turns fake timers on before starting the work.
 */
import { vi } from 'vitest';

/** Moves the fake clock a millisecond at a time until `work` settles, then gives back real timers. */
export async function settleOnFakeTime<T>(work: Promise<T>): Promise<T> {
  let settled = false;
  const done = work.finally(() => {
    settled = true;
  });
  done.catch(() => undefined);
  try {
    // fake-time: each step is a millisecond of the fake clock, not of the wall clock.
    while (!settled) await vi.advanceTimersByTimeAsync(1);
  } finally {
    vi.useRealTimers();
  }
  return work;
}
