/**
 * @module engine/latency
 * Scenario latency on the engine's clock, cancellable as a whole: a server shutting down ends
 * every wait at once (the requests then get their answers) instead of holding connections and
 * timers for up to the scenario's 60 s (docs/reliability.md, shutdown).
 */
import type { Clock } from './clock.js';

export class LatencyWaits {
  /** One controller per wait in progress, so each signal has a single listener. */
  private readonly inProgress = new Set<AbortController>();
  private closed = false;

  constructor(private readonly clock: Clock) {}

  /** Waits `ms` on the clock, or not at all once closed. */
  async wait(ms: number): Promise<void> {
    if (ms <= 0 || this.closed) return;
    const controller = new AbortController();
    this.inProgress.add(controller);
    try {
      await this.clock.sleep(ms, { signal: controller.signal });
    } finally {
      this.inProgress.delete(controller);
    }
  }

  /** Ends every wait in progress and makes later ones return at once. */
  close(): void {
    this.closed = true;
    for (const controller of this.inProgress) controller.abort();
    this.inProgress.clear();
  }
}
