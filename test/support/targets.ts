/**
 * A mock target: one way of reaching the engine (in-process here; the HTTP server and MSW
 * add theirs). The behaviour suite is written against this interface only, so it runs
 * unchanged against every target.
 */
import type { MockControl, MockEngineOptions, VirtualClock } from '../../src/engine/index.js';

export interface MockTarget {
  /** Sends a request to a path of the contract, such as '/v0/evaluations'. */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  readonly control: MockControl;
  /** The engine's clock, which only the test moves. */
  readonly clock: VirtualClock;
  close(): Promise<void>;
}

export type TargetOptions = Omit<MockEngineOptions, 'clock'>;

export interface TargetFactory {
  readonly name: string;
  create(options?: TargetOptions): Promise<MockTarget>;
}
