/**
 * @module client/poll-clock
 * The time waitForJob polls by. Injectable so tests drive it with a virtual clock (the engine's
 * VirtualClock fits) instead of sleeping.
 */

export interface PollClock {
  /** Milliseconds since the epoch; Retry-After dates are measured from it. */
  now(): number;
  /** Waits `ms` milliseconds of this clock's time; may end early when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** Real time, with a sleep that ends as soon as the signal aborts. */
export const realClock: PollClock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve) => {
      if (signal?.aborted) return resolve();
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal?.addEventListener('abort', done, { once: true });
    }),
};
