/**
 * @module engine
 * The isomorphic mock engine of the Evidence Evaluation and Verification Service contract:
 * `createMockEngine(options).handle(request)` answers a Fetch Request with a Response.
 * Imports nothing from Node; runs in Node, MSW's setupServer and a browser service worker.
 */
export { answerToResponse, callFromRequest, type EngineAnswer, type EngineCall, joinChunks } from './call.js';
export { canonicalJson, requestDigest } from './canonical-json.js';
export { type Clock, systemClock, VirtualClock } from './clock.js';
export { type ControlApiOptions, controlPrefix, handleControl, isControlPath } from './control-api.js';
export {
  ControlError,
  createMockEngine,
  type JobInspection,
  type MockControl,
  type MockEngine,
  type MockEngineOptions,
  normalizeBasePath,
} from './engine.js';
export type { JobRecord, TimelineStep } from './jobs.js';
export type { JournalEntry } from './journal.js';
export type { IdempotencyRecord } from './operations.js';
export { type EngineError, errorAnswer } from './responses.js';
export { defaultTimeline, parseScenario, type Scenario, ScenarioError, type ScenarioInput, scenarioSchema } from './scenario.js';
export { type KeyValueStore, MemoryStore, type MemoryStoreOptions, type StoreEntry } from './store.js';
export { type IssuerKeySet, mintArtifact, verifyArtifact } from './verification/artifact-profile.js';
export { testKeySet } from './verification/test-keys.js';
