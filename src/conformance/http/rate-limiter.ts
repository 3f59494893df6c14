/**
 * @module conformance/http/rate-limiter
 * Spaces requests so the runner sends at most N per second (--rate), for targets with rate
 * limits (docs/assumptions.md A-11).
 */

export interface RateLimiter {
  /** Resolves when the next request may be sent, or at once when `signal` aborts (the run was stopped). */
  wait(signal?: AbortSignal): Promise<void>;
}

export function createRateLimiter(options: { perSecond?: number }): RateLimiter {
  const perSecond = options.perSecond;
  if (!perSecond || perSecond <= 0) return { wait: async () => undefined };
  const interval = 1000 / perSecond;
  let next = 0;
  return {
    async wait(signal) {
      const now = performance.now();
      const at = Math.max(now, next);
      next = at + interval;
      if (at <= now || signal?.aborted) return;
      // A low --rate spaces requests by seconds: a stopped run does not sit out the space.
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, at - now);
        signal?.addEventListener('abort', done, { once: true });
      });
    },
  };
}
