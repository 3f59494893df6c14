/**
 * @module engine/engine
 * The isomorphic mock of the whole contract: a Fetch Request in, a Response out. One pipeline
 * of named stages — route → scenario and faults → operation (validate, act on state) →
 * respond and journal — served unchanged by the node:http adapter and by MSW handlers.
 */
import { profileOption, type ServerProfile } from '../profile/profile.js';
import { answerToResponse, callFromRequest, type EngineAnswer, type EngineCall } from './call.js';
import { type Clock, systemClock } from './clock.js';
import { ConsumerWatch } from './consumer-watch.js';
import { createControlSurface, type MockControl } from './control-surface.js';
import { contractOption } from './engine-contract.js';
import { JobControl } from './job-control.js';
import type { JobRecord } from './jobs.js';
import { Journal, type JournalEntry } from './journal.js';
import { LatencyWaits } from './latency.js';
import type { IdempotencyRecord } from './operations.js';
import { createRandom } from './random.js';
import type { ReplicaLink } from './replica-link.js';
import { ReplicaSync } from './replica-sync.js';
import { RequestPipeline } from './request-pipeline.js';
import type { ScenarioInput } from './scenario.js';
import { ScenarioInForce } from './scenario-in-force.js';
import { idempotencyRecordBytes, jobRecordBytes } from './sizes.js';
import { type KeyValueStore, MemoryStore } from './store.js';
import type { IssuerKeySet } from './verification/artifact-profile.js';
import { testKeySet } from './verification/test-keys.js';

export { ControlError, pageLimits } from './control-error.js';
export type { MockControl } from './control-surface.js';
export type { JobInspection } from './job-control.js';

const hour = 60 * 60 * 1000;
const mebibyte = 1024 * 1024;

/** The store bounds in force when none are given (docs/assumptions.md A-18). */
export const defaultLimits = {
  maxJobs: 100_000,
  maxIdempotencyKeys: 100_000,
  jobTtlMs: 24 * hour,
  idempotencyKeyTtlMs: 24 * hour,
  maxJobBytes: 128 * mebibyte,
  maxIdempotencyKeyBytes: 96 * mebibyte,
  maxJournalBytes: 4 * mebibyte,
  maxScenarioRegistryBytes: 16 * mebibyte,
  maxRegisteredScenarios: 64,
} as const;

export type EngineLimits = { readonly [Name in keyof typeof defaultLimits]?: number };

export interface MockEngineOptions {
  /** The scenario in force: a shipped or registered scenario's name, or a scenario object. Default 'default'. */
  readonly scenario?: string | ScenarioInput;
  /** More scenarios to register by name (for the Prefer header and the control surface). */
  readonly scenarios?: readonly ScenarioInput[];
  /** The engine's time; pass a VirtualClock in tests. Default: real time. */
  readonly clock?: Clock;
  /** Seeds job identifiers and fractional faults, for reproducible runs. */
  readonly seed?: number;
  /**
   * Store bounds (docs/assumptions.md ), each oldest-first: entries and estimated
   * bytes of jobs and idempotency keys, bytes of the journal, and the scenarios registered at
   * run time. Defaults: `defaultLimits`.
   */
  readonly limits?: EngineLimits;
  /** Replace the in-memory stores (for example with a networked one). */
  readonly stores?: {
    readonly jobs?: KeyValueStore<JobRecord>;
    readonly idempotencyKeys?: KeyValueStore<IdempotencyRecord>;
  };
  /** A path prefix the contract's paths sit under, such as '/api'. Default: none. */
  readonly basePath?: string;
  /**
   * The contract to serve: an OpenAPI 3.1 document (a parsed object, local `$ref`s allowed) or
   * one already built with `contractFromDocument`. Default: the bundled spec/openapi.yaml.
   */
  readonly spec?: unknown;
  /** Issuers' keys for verifyReport. Default: the shipped test key set. */
  readonly issuerKeys?: IssuerKeySet;
  /** How many journal entries to keep. Default 1000. */
  readonly journalCapacity?: number;
  /**
   * Engines sharing networked `stores` (replicas behind a load balancer) share the scenario
   * in force, run-time scenarios, resets and counted faults through this link. With a
   * link, job ids are never drawn from `seed`: replicas with one seed would draw the same ids.
   */
  readonly replicaLink?: ReplicaLink;
  /** Called with every journal entry as it is recorded (to keep a journal shared by replicas). */
  readonly onJournalEntry?: (entry: JournalEntry) => void;
  /**
   * A server profile (docs/profiles.md, A-50): a parsed profile document or one resolved with
   * `resolveProfile`. The mock then answers every declared point as the profile says. Default:
   * today's behaviour. A profile that would break a rule of the contract throws ProfileError.
   */
  readonly profile?: unknown;
}

export interface MockEngine {
  /** Answers one request as the service would under the scenario in force. Never throws. */
  handle(request: Request): Promise<Response>;
  /**
   * Ends every scenario latency wait now, and every later one at once, so that a server
   * shutting down answers what is in flight instead of holding it (and its timers) for up
   * to a minute. Requests still get their answer. It cannot be undone: a closed engine still
   * answers, but without scenario latency, so close it only when you are done with it (the
   * mock server's close() does). Optional for engines of your own.
   */
  close?(): void;
  /**
   * `handle` without Fetch objects: the same answer for the same call. For servers that are
   * not Fetch-based (the node:http server), which would otherwise build a Request and read
   * back a Response per request. Optional, so an engine of your own need only have `handle`.
   */
  answerCall?(call: EngineCall): Promise<EngineAnswer>;
  readonly control: MockControl;
  readonly clock: Clock;
}

/**
 * '/api', 'api', '/api/' → '/api'; '' and '/' → '' (none). Throws a TypeError for a value that
 * is not a path, so a typo fails at start rather than turning every answer into a 404.
 */
export function normalizeBasePath(basePath: string | undefined): string {
  const trimmed = (basePath ?? '').trim().replace(/\/+$/, '');
  if (trimmed === '') return '';
  const withSlash = trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
  if (!/^(\/[A-Za-z0-9._~!$&'()*+,;=:@%-]+)+$/.test(withSlash)) {
    throw new TypeError(`basePath must be a path such as '/api', got '${basePath}'`);
  }
  return withSlash;
}

/** The limits given, each checked, over the defaults. */
function resolveLimits(given: EngineLimits = {}): { readonly [Name in keyof typeof defaultLimits]: number } {
  const limits: Record<string, number> = { ...defaultLimits };
  for (const [name, value] of Object.entries(given)) {
    if (value === undefined) continue;
    if (!(name in defaultLimits))
      throw new TypeError(`createMockEngine: unknown limit '${name}'; known: ${Object.keys(defaultLimits).join(', ')}`);
    if (!(Number.isFinite(value) && value >= 1))
      throw new RangeError(`createMockEngine: limits.${name} must be a number ≥ 1, got ${value}`);
    limits[name] = value;
  }
  return limits as { readonly [Name in keyof typeof defaultLimits]: number };
}

export function createMockEngine(options: MockEngineOptions = {}): MockEngine {
  const clock = options.clock ?? systemClock;
  const limits = resolveLimits(options.limits);
  const contract = contractOption(options.spec);
  const basePath = normalizeBasePath(options.basePath);
  const link = options.replicaLink;
  const profile: ServerProfile = profileOption(options.profile);
  const scenarios = new ScenarioInForce({
    contract,
    scenario: options.scenario,
    scenarios: options.scenarios,
    seed: options.seed,
    maxRegistryBytes: limits.maxScenarioRegistryBytes,
    maxRegistered: limits.maxRegisteredScenarios,
    faultCounter: link ? (key) => link.countFault(key) : undefined,
  });
  const jobs =
    options.stores?.jobs ??
    new MemoryStore<JobRecord>({
      clock,
      maxEntries: limits.maxJobs,
      ttlMs: limits.jobTtlMs,
      maxBytes: limits.maxJobBytes,
      sizeOf: jobRecordBytes,
    });
  const idempotencyKeys =
    options.stores?.idempotencyKeys ??
    new MemoryStore<IdempotencyRecord>({
      clock,
      maxEntries: limits.maxIdempotencyKeys,
      ttlMs: limits.idempotencyKeyTtlMs,
      maxBytes: limits.maxIdempotencyKeyBytes,
      sizeOf: idempotencyRecordBytes,
    });
  const journal = new Journal({ capacity: options.journalCapacity ?? 1000, maxBytes: limits.maxJournalBytes });
  const watch = new ConsumerWatch();
  const latency = new LatencyWaits(clock);
  // Replicas would share a seed: their job ids come from fresh random bytes instead.
  const unseeded = createRandom();
  const pipeline = new RequestPipeline({
    contract,
    basePath,
    scenarios,
    clock,
    latency,
    jobs,
    idempotencyKeys,
    issuerKeys: options.issuerKeys ?? testKeySet,
    jobIdRandom: link ? () => unseeded : () => scenarios.random,
    journal,
    watch,
    onJournalEntry: options.onJournalEntry,
    profile,
  });
  const answerCall = (call: EngineCall): Promise<EngineAnswer> => pipeline.answer(call);
  const resetLocal = () => {
    journal.clear();
    watch.afterReset();
    scenarios.reset();
  };
  const sync = new ReplicaSync({ link, scenarios, resetLocal });
  const handle = async (request: Request): Promise<Response> => answerToResponse(await answerCall(callFromRequest(request)));
  const control = createControlSurface({
    contract,
    basePath,
    handle,
    scenarios,
    sync,
    jobControl: new JobControl({ jobs, clock, contract }),
    jobs,
    idempotencyKeys,
    journal,
    watch,
    clock,
    resetLocal,
    profile,
  });
  return {
    handle,
    answerCall,
    control,
    clock,
    close: () => latency.close(),
  };
}
