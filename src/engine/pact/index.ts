/**
 * @module engine/pact
 * Pact out of the mock: the recorder the consumer watch feeds, the V4 writer, and the provider
 * states the mock sets up when Pact's verifier checks a pact against it (docs/pact.md).
 */
import type { EngineContract } from '../engine-contract.js';
import { createProviderStates, type ProviderStateChange } from './provider-states.js';

export { jsonSchemaOf } from './matching-rules.js';
export * from './pact-v4.js';
export { writePactDocument } from './pact-writer.js';
export type { ProviderStateChange } from './provider-states.js';
export { PactRecorder, pactRecordLimits, type RecordedExchange } from './recorder.js';
export { jobStateName, knownStateNames, parseJobStateName, stateNames } from './state-names.js';

/** The state handler of one engine, from its parts (createMockEngine wires it). */
export function providerStatesFor(options: {
  readonly handle: (request: Request) => Promise<Response>;
  readonly control: {
    reset(): Promise<void>;
    // Method syntax: MockControl's narrower status type is accepted, and setJobState checks the value.
    setJobState(options: { jobId: string; status: string; evaluation?: string; limitations?: readonly string[] }): Promise<unknown>;
  };
  readonly basePath: string;
  readonly contract: EngineContract;
  readonly invalid: (message: string) => Error;
}): (change: ProviderStateChange) => Promise<Record<string, unknown>> {
  const { control, contract } = options;
  const create = contract.routes.find((route) => route.operationId === 'createEvaluation');
  return createProviderStates({
    handle: options.handle,
    reset: () => control.reset(),
    setJobState: (state) => control.setJobState(state),
    createPath: `${options.basePath}${create?.path.template ?? '/v0/evaluations'}`,
    jobStatuses: contract.jobStatuses,
    invalid: options.invalid,
  });
}
