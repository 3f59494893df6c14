/**
 * @module engine
 * The isomorphic mock engine of the Evidence Evaluation and Verification Service contract:
 * `createMockEngine(options).handle(request)` answers a Fetch Request with a Response.
 * Imports nothing from Node; runs in Node, MSW's setupServer and a browser service worker.
 */

export { truncate } from '../contract/error-body.js';
export type { EntryName } from '../profile/entries.js';
export {
  defaultEntries,
  defaultProfile,
  ProfileError,
  profileDocument,
  resolveProfile,
  type ServerProfile,
} from '../profile/profile.js';
export { answerToResponse, callFromRequest, type EngineAnswer, type EngineCall, joinChunks } from './call.js';
export { anonymousCaller, callerFingerprint } from './caller.js';
export { canonicalJson, requestDigest } from './canonical-json.js';
export type { ClientFinding } from './client-findings/judge.js';
export { clientRules } from './client-findings/registry.js';
export type { ClientRule, RuleHit } from './client-findings/rule.js';
export { type Clock, systemClock, VirtualClock } from './clock.js';
export type { ConsumerReport } from './consumer-watch.js';
export { type ControlApiOptions, type ControlJournal, controlPrefix, handleControl, isControlPath, journalQuery } from './control-api.js';
export { type Behaviour, type BehaviourCoverage, behaviours, isBehaviourId } from './coverage.js';
export {
  type AllSessionsCoverage,
  ControlError,
  createMockEngine,
  defaultLimits,
  type EngineLimits,
  type JobInspection,
  type JournalRequest,
  type MockControl,
  type MockEngine,
  type MockEngineOptions,
  normalizeBasePath,
  pageLimits,
  type SessionCoverage,
  type SessionShare,
  type SessionSummary,
  type SessionUse,
} from './engine.js';
export {
  type BehaviourOperationId,
  buildEngineContract,
  bundledEngineContract,
  ContractDocumentError,
  contractFromDocument,
  type EngineContract,
  type ExampleOperation,
} from './engine-contract.js';
export type { JobRecord, TimelineStep } from './jobs.js';
export {
  type JournalEntry,
  type JournalFilter,
  type JournalOrder,
  type JournalPage,
  journalMatches,
  journalPathLength,
} from './journal.js';
export type { ExampleRequest, Observation } from './observation.js';
export type { IdempotencyRecord } from './operations.js';
export {
  defaultPactParties,
  jobStateName,
  knownStateNames,
  type PactParties,
  type PactSynchronousHttp,
  type PactV4,
  type ProviderStateChange,
  pactParties,
  pactRecordLimits,
  stateNames,
} from './pact/index.js';
export type { DeliveredChange, ReplicaChange, ReplicaLink, SharedScenarioState } from './replica-link.js';
export { type ControlErrorCode, type EngineError, errorAnswer, quote } from './responses.js';
export {
  checkScenario,
  defaultTimeline,
  parseScenario,
  type Scenario,
  ScenarioError,
  type ScenarioInput,
  scenarioLimits,
  scenarioSchema,
} from './scenario.js';
export { checkSessionName, defaultSessionName, sessionHeader } from './session-book.js';
export {
  type KeyValueStore,
  MemoryStore,
  type MemoryStoreOptions,
  type StoreEntry,
  type StorePage,
  StoreUnavailableError,
} from './store.js';
export { type IssuerKeySet, mintArtifact, verifyArtifact } from './verification/artifact-profile.js';
export { testKeySet } from './verification/test-keys.js';
