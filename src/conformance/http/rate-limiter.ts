/**
 * @module conformance/http/rate-limiter
 * Spaces requests so the runner sends at most N per second (--rate), for targets with rate
 * limits (docs/assumptions.md A-11).
 */

export interface RateLimiter {
  /** Resolves when the next request may be sent. */
  wait(): Promise<void>;
}

export function createRateLimiter(options: { perSecond?: number }): RateLimiter {
  const perSecond = options.perSecond;
  if (!perSecond || perSecond <= 0) return { wait: async () => undefined };
  const interval = 1000 / perSecond;
  let next = 0;
  return {
    async wait() {
      const now = performance.now();
      const at = Math.max(now, next);
      next = at + interval;
      if (at > now) await new Promise((resolve) => setTimeout(resolve, at - now));
    },
  };
}
