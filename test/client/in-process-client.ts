/**
 * A typed client wired straight to an in-process mock engine (its fetch calls engine.handle),
 * with a virtual clock that records every wait waitForJob asks for, so tests never sleep.
 */
import { createEvidenceClient, type EvidenceClient, type PollClock } from '../../src/client/index.js';
import { createMockEngine, type MockEngine, type ScenarioInput, VirtualClock } from '../../src/engine/index.js';

export interface InProcessClient {
  readonly client: EvidenceClient;
  readonly engine: MockEngine;
  readonly clock: VirtualClock;
  /** The clock to give waitForJob: the engine's time, moved by each sleep. */
  readonly pollClock: PollClock;
  /** Every sleep waitForJob asked for, in order. */
  readonly sleeps: number[];
}

export const baseUrl = 'http://evidence.mock.test';

export function inProcessClient(options: { scenario?: string | ScenarioInput; headers?: Record<string, string> } = {}): InProcessClient {
  const clock = new VirtualClock({ start: Date.UTC(2026, 10, 22) });
  const engine = createMockEngine({ clock, seed: 7, ...(options.scenario ? { scenario: options.scenario } : {}) });
  const client = createEvidenceClient({
    baseUrl,
    ...(options.headers ? { headers: options.headers } : {}),
    fetch: (request) => engine.handle(request),
  });
  const sleeps: number[] = [];
  const pollClock: PollClock = {
    now: () => clock.now(),
    sleep: async (ms) => {
      sleeps.push(ms);
      clock.advance(ms);
    },
  };
  return { client, engine, clock, pollClock, sleeps };
}
