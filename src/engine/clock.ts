/**
 * @module engine/clock
 * Time for the engine, injectable so tests never sleep: job timelines, key expiry and scenario
 * latency all read this clock.
 */

export interface Clock {
  /** Milliseconds since the epoch (or since any fixed origin, for a virtual clock). */
  now(): number;
  /**
   * Waits `ms` milliseconds of this clock's time. When `signal` aborts, the wait ends at once
   * (resolving, not rejecting: the caller goes on to answer) and holds no timer any more.
   */
  sleep(ms: number, options?: { readonly signal?: AbortSignal }): Promise<void>;
}

/** Real time. */
export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, options) =>
    new Promise((resolve) => {
      const signal = options?.signal;
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

/**
 * Time that moves only when told to. `sleep` moves it forward at once instead of waiting,
 * so scenario latency is observable in tests without delaying them.
 */
export class VirtualClock implements Clock {
  private time: number;

  constructor(options: { start?: number } = {}) {
    this.time = options.start ?? 0;
  }

  now(): number {
    return this.time;
  }

  /** Moves time forward by `ms` milliseconds. */
  advance(ms: number): void {
    if (!(ms >= 0)) throw new RangeError(`VirtualClock.advance: expected a non-negative number of milliseconds, got ${ms}`);
    this.time += ms;
  }

  sleep(ms: number): Promise<void> {
    this.advance(Math.max(0, ms));
    return Promise.resolve();
  }
}
