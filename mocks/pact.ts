/**
 * @module mocks/pact
 * The test-runner side of Pact out: `pactFrom` gives the Pact V4 document of what a suite's
 * requests made the mock show (one interaction per distinct behaviour, docs/pact.md), as an
 * object, in Node and in a browser alike. `writePact` (evidence-harness/msw/node) writes it to
 * a file for the Pact Broker.
 */
import type { PactParties, PactV4 } from '../src/engine/index.js';

/** Anything with the engine's pact(): `mock.control`, `engine.control`. */
export interface PactSource {
  pact(parties?: Partial<PactParties>): PactV4;
}

/**
 * The pact of the suite so far. Like coverage, it survives `control.reset()`, so take it once,
 * after the suite (afterAll).
 *
 * @example
 * afterAll(() => publish(pactFrom(mock.control, { consumer: 'checkout-web', provider: 'evidence-service' })));
 */
export function pactFrom(source: PactSource, parties: Partial<PactParties> = {}): PactV4 {
  if (typeof source?.pact !== 'function') {
    throw new TypeError("pactFrom: give the mock's control (mock.control or engine.control), which has pact().");
  }
  return source.pact(parties);
}
