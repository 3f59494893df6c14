/**
 * @module engine/engine
 * The isomorphic mock of the whole contract: a Fetch Request in, a Response out. One pipeline
 * of named stages — route → scenario and faults → operation (validate, act on state) →
 * respond and journal — served unchanged by the node:http adapter and by MSW handlers.
 */
import type { Job } from '../contract/index.js';
import { builtinScenarios } from './builtin-scenarios.js';
import { answerToResponse, callFromRequest, type EngineAnswer, type EngineCall } from './call.js';
import { anonymousCaller, callerFingerprint } from './caller.js';
import { canonicalJson } from './canonical-json.js';
import { type Clock, systemClock } from './clock.js';
import { type ConsumerReport, ConsumerWatch } from './consumer-watch.js';
import { bundledEngineContract, contractFromDocument, type EngineContract } from './engine-contract.js';
import { answerFromExamples } from './example-operations.js';
import { FaultInjector, type ForcedAnswer, forcedError } from './faults.js';
import { advanced, atTime, isFinal, type JobRecord, jobView, transitionProblem } from './jobs.js';
import { Journal, type JournalEntry, type JournalPage } from './journal.js';
import { LatencyWaits } from './latency.js';
import type { IdempotencyRecord, OperationContext, OperationResult, ReadQueues } from './operations.js';
import * as operations from './operations.js';
import { type PactParties, type PactV4, type ProviderStateChange, providerStatesFor } from './pact/index.js';
import { createRandom } from './random.js';
import type { DeliveredChange, ReplicaChange, ReplicaLink, SharedScenarioState } from './replica-link.js';
import { type EngineError, errorAnswer, quote, truncate } from './responses.js';
import { isEngineError, matchRoute, type OperationId } from './router.js';
import { forcibleStatuses, isForcible, parseScenario, type Scenario, ScenarioError, type ScenarioInput } from './scenario.js';
import { ScenarioRegistry } from './scenario-registry.js';
import { idempotencyRecordBytes, jobRecordBytes } from './sizes.js';
import { type KeyValueStore, MemoryStore, StoreUnavailableError } from './store.js';
import { describeDiagnostics, diagnose } from './validation.js';
import type { IssuerKeySet } from './verification/artifact-profile.js';
import { testKeySet } from './verification/test-keys.js';

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

/** Page sizes of the control surface's listings. */
export const pageLimits = { default: 100, max: 1000, maxBytes: mebibyte } as const;

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
}

/** A job as the control surface shows it: the contract's view plus the mock's bookkeeping. */
export interface JobInspection {
  readonly job: Job;
  /** The creator as a fingerprint (`sha256:…`, or `anonymous`): never the credential itself. */
  readonly owner: string;
  readonly scenario: string;
  readonly createdAt: number;
  readonly reads: number;
}

/** The engine's control surface (served over HTTP by the mock server's control API). */
export interface MockControl {
  /** Forgets every job, key, journal entry and fault counter, and restores the starting scenario. */
  reset(): Promise<void>;
  /** The name of the scenario in force. */
  readonly scenario: string;
  /** Puts a registered scenario (by name) or a new one in force; new ones are registered. */
  useScenario(scenario: string | ScenarioInput): Scenario;
  /** Registers a scenario for later use by name (Prefer header, useScenario). */
  registerScenario(scenario: ScenarioInput): Scenario;
  /**
   * Replaces the starting scenario with a new version (a scenario file edited under
   * `mock --watch`): reset restores this one from now on, and it is put in force unless
   * another scenario was chosen since. The journal records the reload, naming `source`.
   * Returns whether it was put in force.
   */
  reloadStartingScenario(scenario: ScenarioInput, options: { source: string }): { scenario: Scenario; inForce: boolean };
  /** Every registered scenario, shipped ones included. */
  scenarios(): readonly Scenario[];
  /** Every stored job, oldest first (in-process use; over HTTP, jobsPage). */
  listJobs(): Promise<readonly JobInspection[]>;
  /**
   * One page of jobs, oldest first: at most `limit` (default 100, at most 1000) and about
   * 1 MiB, after `cursor` (the `nextCursor` of the page before). Throws ControlError for a
   * limit or cursor it cannot use.
   */
  jobsPage(options?: { limit?: number; cursor?: string }): Promise<{ jobs: readonly JobInspection[]; nextCursor?: string }>;
  inspectJob(jobId: string): Promise<JobInspection | undefined>;
  /** Moves a job to its next timeline step now, whatever that step waits for. */
  advanceJob(jobId: string): Promise<Job>;
  /** Sets a job's state; the move must follow the state machine and evaluation rules. */
  setJobState(options: {
    jobId: string;
    status: Job['status'];
    evaluation?: Job['evaluation'];
    limitations?: readonly string[];
  }): Promise<Job>;
  /** Every journal entry kept, oldest first. */
  journal(): readonly JournalEntry[];
  /** One page of the journal, oldest first, after `cursor` (an entry's `seq`, as `nextCursor` gives it). */
  journalPage(options?: { limit?: number; cursor?: string }): { entries: readonly JournalEntry[]; nextCursor?: string };
  clearJournal(): void;
  /**
   * Resolves once every scenario change made so far is visible to every replica sharing the
   * store (at once without a replica link); rejects with StoreUnavailableError when the
   * store cannot be reached. The control API waits for it before answering a change.
   */
  synced(): Promise<void>;
  /**
   * Which behaviours of the contract the answers so far have shown the client, and the client
   * judge's findings (docs/coverage.md). `reset()` keeps them (docs/assumptions.md A-26).
   */
  coverage(): ConsumerReport;
  /** Forgets the coverage, the client findings and the behaviours `pact()` is written from. */
  resetCoverage(): void;
  /** A Pact V4 document, one interaction per behaviour answered so far (docs/pact.md); resetCoverage() forgets them. */
  pact(parties?: Partial<PactParties>): PactV4;
  /** Sets up a provider state such a pact names, as Pact's verifier asks; answers the values it made (`jobId`). */
  providerState(change: ProviderStateChange): Promise<Record<string, unknown>>;
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

/** Thrown by the control surface for a request it cannot carry out; `message` says why. */
export class ControlError extends Error {
  override readonly name = 'ControlError';
  constructor(
    message: string,
    readonly kind: 'not_found' | 'invalid',
  ) {
    super(message);
  }
}

interface Preferences {
  scenario?: string;
  /** As written, so a message can quote it. */
  code?: string;
}

/** Shared by every call without preferences; never mutated. */
const noPreferences: Preferences = Object.freeze({});

/** Reads `Prefer: scenario=NAME, code=503` (RFC 7240 syntax, in the spirit of Prism's Prefer). */
function preferencesOf(call: EngineCall): Preferences {
  const header = call.header('prefer');
  if (!header) return noPreferences;
  const preferences: Preferences = {};
  for (const part of header.split(/[,;]/)) {
    const [name, raw] = part.split('=').map((piece) => piece.trim());
    const value = raw?.replace(/^"|"$/g, '');
    if (name === 'scenario' && value) preferences.scenario = value;
    if (name === 'code' && value) preferences.code = value;
  }
  return preferences;
}

/** A scenario whose timelines reach only states the served contract has (a document may add some, A-28). */
function withStatesOf(options: { scenario: Scenario; contract: EngineContract; source: string }): Scenario {
  const { scenario, contract, source } = options;
  const plans = [
    ...(scenario.job ? [['job', scenario.job] as const] : []),
    ...scenario.rules.map((rule, index) => [`rules.${index}.job`, rule.job] as const),
  ];
  const problems = plans.flatMap(([path, plan]) =>
    plan.timeline.flatMap((step, index) =>
      contract.jobStatuses.includes(step.status)
        ? []
        : [
            {
              path: `${path}.timeline.${index}.status`,
              message: `${quote(step.status, 64)} is not a job state of the contract served (${contract.jobStatuses.join(', ')})`,
            },
          ],
    ),
  );
  if (problems.length > 0) throw new ScenarioError(source, problems);
  return scenario;
}

/** The contract an engine serves: the bundled one, a built one, or one built from a document. */
function contractOption(spec: unknown): EngineContract {
  if (spec === undefined) return bundledEngineContract;
  if (isEngineContract(spec)) return spec;
  return contractFromDocument(spec);
}

function isEngineContract(value: unknown): value is EngineContract {
  return typeof value === 'object' && value !== null && 'routes' in value && 'exampleOperations' in value;
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

/** A page size as asked (default 100), refused past 1000. */
function pageLimit(limit: number | undefined): number {
  if (limit === undefined) return pageLimits.default;
  if (!(Number.isInteger(limit) && limit >= 1 && limit <= pageLimits.max)) {
    throw new ControlError(`limit must be a whole number from 1 to ${pageLimits.max}, got ${quote(String(limit), 20)}`, 'invalid');
  }
  return limit;
}

export function createMockEngine(options: MockEngineOptions = {}): MockEngine {
  const clock = options.clock ?? systemClock;
  const limits = resolveLimits(options.limits);
  const contract = contractOption(options.spec);
  const parse = (input: ScenarioInput): Scenario => {
    const source = `scenario ${quote(String((input as { name?: unknown })?.name ?? '?'), 80)}`;
    return withStatesOf({ scenario: parseScenario({ value: input, source }), contract, source });
  };
  // The shipped scenarios and those given here live as long as the engine; reset keeps them.
  const startup = builtinScenarios();
  const builtinScenarioNames = new Set(startup.keys());
  for (const input of options.scenarios ?? []) {
    const scenario = parse(input);
    startup.set(scenario.name, scenario);
  }
  if (options.scenario !== undefined && typeof options.scenario !== 'string') {
    const scenario = parse(options.scenario);
    startup.set(scenario.name, scenario);
  }
  const registry = new ScenarioRegistry({
    startup,
    maxBytes: limits.maxScenarioRegistryBytes,
    maxCount: limits.maxRegisteredScenarios,
  });
  const named = (name: string): Scenario => {
    const found = registry.get(name);
    if (!found) throw new ControlError(`unknown scenario ${quote(name, 80)}; known: ${registry.describeNames()}`, 'not_found');
    return found;
  };
  let initialScenario = named(
    options.scenario === undefined ? 'default' : typeof options.scenario === 'string' ? options.scenario : String(options.scenario.name),
  );
  let scenario = initialScenario;
  /** Registers a scenario at run time; the one in force is never dropped to make room. */
  const register = (input: ScenarioInput): Scenario => {
    const parsed = parse(input);
    try {
      registry.register(parsed, { keep: scenario.name });
    } catch (error) {
      if (error instanceof RangeError) throw new ControlError(error.message, 'invalid');
      throw error;
    }
    return parsed;
  };

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
  let random = createRandom(options.seed === undefined ? {} : { seed: options.seed });
  const link = options.replicaLink;
  /** Numbers scenario changes; with a link, the shared number, so counted faults restart together. */
  let epoch = 0;
  const newFaults = () => new FaultInjector({ random, epoch, ...(link ? { counter: (key: string) => link.countFault(key) } : {}) });
  let faults = newFaults();
  /** Job ids: the seeded draw alone, or fresh random bytes for replicas, which would share a seed. */
  const jobIdRandom = () => (link ? unseededRandom : random);
  const unseededRandom = createRandom();
  const journal = new Journal({ capacity: options.journalCapacity ?? 1000, maxBytes: limits.maxJournalBytes });
  const issuerKeys = options.issuerKeys ?? testKeySet;
  const basePath = normalizeBasePath(options.basePath);
  const latency = new LatencyWaits(clock);
  /** Creates in progress by caller-scoped Idempotency-Key (operations.ts, oneAtATime). */
  const creating = new Map<string, Promise<unknown>>();
  /** Reads of each job waiting their batch (operations.ts, queueRead). */
  const reading: ReadQueues = new Map();
  const watch = new ConsumerWatch();

  const handlers: Record<OperationId, (context: OperationContext) => Promise<OperationResult>> = {
    health: operations.health,
    createEvaluation: operations.createEvaluation,
    verifyReport: operations.verifyReport,
    getJob: operations.getJob,
  };

  /**
   * Checks the call's preferences against what this operation may answer. An unusable one is
   * refused with 400 where the operation documents 400; getJob documents none, so there it is
   * ignored, as RFC 7240 lets a server ignore a preference.
   */
  function usablePreferences(operationId: OperationId, preferences: Preferences): Preferences | EngineError {
    const problems: string[] = [];
    const usable: Preferences = {};
    if (preferences.scenario !== undefined) {
      if (registry.has(preferences.scenario)) usable.scenario = preferences.scenario;
      else problems.push(`Prefer: scenario=${truncate(preferences.scenario, 80)} names no scenario; known: ${registry.describeNames()}.`);
    }
    if (preferences.code !== undefined) {
      if (/^\d{3}$/.test(preferences.code) && isForcible(operationId, Number(preferences.code))) usable.code = preferences.code;
      else {
        const allowed = forcibleStatuses[operationId as keyof typeof forcibleStatuses] ?? [];
        problems.push(
          `Prefer: code=${truncate(preferences.code, 20)} is not a status ${operationId} can be forced to answer; use one of ${allowed.join(', ')}.`,
        );
      }
    }
    if (problems.length === 0 || operationId === 'getJob') return usable;
    return { status: 400, code: 'invalid_request', message: problems.join(' ') };
  }

  /** The forced answer for this call: a `Prefer: code=` first, then the scenario's faults. */
  async function forcedAnswer(operationId: OperationId, active: Scenario, preferences: Preferences): Promise<ForcedAnswer | undefined> {
    if (preferences.code !== undefined) {
      const status = Number(preferences.code);
      return {
        error: forcedError({
          status,
          operationId,
          scenario: active.name,
          message: `Forced by the Prefer header: ${status} on ${operationId}.`,
        }),
        latencyMs: 0,
      };
    }
    return await faults.decide({ scenario: active, operationId });
  }

  async function pipeline(call: EngineCall): Promise<{
    result: OperationResult;
    entry: Omit<JournalEntry, 'seq' | 'time' | 'method' | 'path' | 'status' | 'durationMs' | 'code' | 'jobId'>;
    /** The caller's fingerprint, once the call is routed to an operation (the consumer watch reuses it). */
    caller?: string;
  }> {
    const pathname = call.pathname;
    // The base path is a whole number of segments: /api covers /api/health, not /apiv0/health.
    const underBase = !basePath || pathname === basePath || pathname.startsWith(`${basePath}/`);
    const route = underBase
      ? matchRoute({ method: call.method, path: pathname.slice(basePath.length) || '/', routes: contract.routes })
      : ({
          status: 404,
          code: 'route_not_found',
          message: `The contract is served under ${basePath}; ${pathname.slice(0, 200)} is outside it.`,
        } satisfies EngineError);
    if (isEngineError(route))
      return { result: { answer: errorAnswer(route), code: route.code }, entry: { scenario: scenario.name, forced: false } };
    const examples = contract.exampleOperations.get(route.operationId);
    if (examples) {
      const preferred = Number(preferencesOf(call).code);
      const result = await answerFromExamples({
        operation: examples,
        call,
        params: route.params,
        ...(Number.isInteger(preferred) ? { preferredStatus: preferred } : {}),
      });
      return { result, entry: { operationId: route.operationId, scenario: scenario.name, forced: false } };
    }
    if (!Object.hasOwn(handlers, route.operationId)) {
      const message = `The document names ${truncate(route.operationId, 80)}, which the mock cannot serve.`;
      return {
        result: { answer: errorAnswer({ status: 404, code: 'route_not_found', message }), code: 'route_not_found' },
        entry: { scenario: scenario.name, forced: false },
      };
    }
    const operationId = route.operationId as OperationId;
    // Health is anyone's: its caller is never fingerprinted.
    const caller = operationId === 'health' ? anonymousCaller : await callerFingerprint(call.header('authorization'));
    // Health documents only 200: no preference, valid or not, changes its answer.
    const preferences = operationId === 'health' ? noPreferences : usablePreferences(operationId, preferencesOf(call));
    if (isEngineError(preferences)) {
      return {
        result: { answer: errorAnswer(preferences), code: preferences.code },
        entry: { operationId: operationId, scenario: scenario.name, forced: false },
        caller,
      };
    }
    const active = (preferences.scenario && registry.get(preferences.scenario)) || scenario;
    const base = { operationId: operationId, scenario: active.name };
    const forced = await forcedAnswer(operationId, active, preferences);
    if (forced) {
      call.discardBody();
      await latency.wait(forced.latencyMs + active.latencyMs);
      return { result: { answer: errorAnswer(forced.error), code: forced.error.code }, entry: { ...base, forced: true }, caller };
    }
    if (active.latencyMs > 0) await latency.wait(active.latencyMs);
    const context: OperationContext = {
      call,
      params: route.params,
      caller,
      scenario: active,
      clock,
      random: jobIdRandom(),
      jobs,
      idempotencyKeys,
      issuerKeys,
      creating,
      reading,
      contract,
    };
    const result = await handlers[operationId](context);
    return { result, entry: { ...base, forced: false }, caller };
  }

  async function answerCall(call: EngineCall): Promise<EngineAnswer> {
    const started = clock.now();
    let outcome: Awaited<ReturnType<typeof pipeline>>;
    const watched = watch.begin(call);
    try {
      outcome = await pipeline(watched.call);
    } catch (error) {
      // A bug in the mock must still answer as the contract allows, without a stack trace; a
      // shared store out of reach is the service being unavailable, for a while.
      const failure: EngineError =
        error instanceof StoreUnavailableError
          ? { status: 503, code: 'service_unavailable', message: error.message, headers: { 'retry-after': '1' } }
          : {
              status: 500,
              code: 'internal_error',
              message: `The mock failed while answering: ${String((error as Error)?.message ?? error).slice(0, 300)}`,
            };
      outcome = { result: { answer: errorAnswer(failure), code: failure.code }, entry: { scenario: scenario.name, forced: false } };
    }
    const entry = {
      time: started,
      method: call.method,
      path: call.pathname,
      status: outcome.result.answer.status,
      durationMs: clock.now() - started,
      ...outcome.entry,
      ...(outcome.result.code ? { code: outcome.result.code } : {}),
      ...(outcome.result.jobId ? { jobId: outcome.result.jobId } : {}),
      ...(outcome.result.job ? { jobStatus: outcome.result.job.status } : {}),
    };
    const recorded = journal.record(entry);
    if (recorded) options.onJournalEntry?.(recorded);
    watched.end({ entry, answer: outcome.result.answer, caller: outcome.caller, job: outcome.result.job });
    // HEAD answers, errors included, carry the headers of the GET answer and no body.
    if (call.method.toUpperCase() === 'HEAD') return { ...outcome.result.answer, body: null };
    return outcome.result.answer;
  }

  async function handle(request: Request): Promise<Response> {
    return answerToResponse(await answerCall(callFromRequest(request)));
  }

  const inspection = (record: JobRecord): JobInspection => ({
    job: jobView(atTime(record, clock.now())),
    owner: record.owner,
    scenario: record.scenario,
    createdAt: record.createdAt,
    reads: record.reads,
  });

  async function updateJob(jobId: string, change: (record: JobRecord) => JobRecord): Promise<Job> {
    for (let attempt = 0; attempt < 20; attempt += 1) {
      const entry = await jobs.get(jobId);
      if (!entry) throw new ControlError(`no job ${quote(jobId, 140)}`, 'not_found');
      const next = change(atTime(entry.value, clock.now()));
      if (await jobs.compareAndSet(jobId, entry.version, next)) return jobView(next);
    }
    throw new ControlError(`job ${quote(jobId, 140)} kept changing; try again`, 'invalid');
  }

  /** Forgets what a reset forgets but the stores, which the replica that reset has cleared. */
  function resetLocalState(): void {
    journal.clear();
    watch.afterReset();
    registry.reset();
    random = createRandom(options.seed === undefined ? {} : { seed: options.seed });
    scenario = initialScenario;
    faults = newFaults();
  }

  function putInForce(choice: string | ScenarioInput): Scenario {
    scenario = typeof choice === 'string' ? named(choice) : register(choice);
    faults = newFaults();
    return scenario;
  }

  /** Shares not yet confirmed, each settled to its failure or to nothing (never an unhandled rejection). */
  let unconfirmed: Array<Promise<unknown>> = [];

  /** Shares a change with the other replicas; synced() reports whether it got through. */
  function share(change: ReplicaChange): void {
    if (!link) return;
    unconfirmed.push(
      link.publish(change).then(
        (shared) => {
          // The channel may have delivered later changes already: never go back to an older number.
          if (shared > epoch) {
            epoch = shared;
            faults = newFaults();
          }
          return undefined;
        },
        (error: unknown) => {
          // The change is in force here but nowhere else: take the shared state back once the store answers.
          link.requestResync();
          return error;
        },
      ),
    );
    // A program that changes scenarios in a loop and never asks synced() keeps one entry, not thousands.
    if (unconfirmed.length > 64) {
      const waiting = unconfirmed;
      unconfirmed = [Promise.all(waiting).then((outcomes) => outcomes.find((outcome) => outcome !== undefined))];
    }
  }

  /** Adopts the shared state: at start, and after the link was lost (changes may have been missed). */
  function adopt(state: SharedScenarioState | undefined, options: { atStart: boolean }): void {
    if (!state) {
      // Nothing shared (a new store, or Redis restarted without persistence): the starting scenario.
      if (options.atStart) return;
      registry.reset();
      scenario = initialScenario;
      epoch = 0;
      faults = newFaults();
      return;
    }
    // The first read may come back after changes heard since: they are newer. A resync after a
    // lost link takes the store's word whatever its number (a restarted Redis starts again).
    if (options.atStart && state.epoch < epoch) return;
    registry.reset();
    for (const input of state.registered) {
      try {
        register(input);
      } catch {
        // A scenario this replica cannot take (another version's schema) is left out, not fatal.
      }
    }
    scenario = (state.inForce === undefined ? undefined : registry.get(state.inForce)) ?? initialScenario;
    epoch = state.epoch;
    faults = newFaults();
  }

  /** Applies a change another replica made. */
  function apply(change: DeliveredChange): void {
    try {
      if (change.kind === 'reset') resetLocalState();
      else if (change.kind === 'register') register(change.scenario);
      else if (typeof change.scenario !== 'string' || registry.has(change.scenario)) putInForce(change.scenario);
    } catch {
      // A change this replica cannot apply leaves its state as it was; the next resync repairs it.
    }
    epoch = Math.max(epoch, change.epoch);
    faults = newFaults();
  }

  if (link) {
    link.subscribe({ change: apply, resync: (state) => adopt(state, { atStart: false }) });
    unconfirmed.push(
      link.load().then(
        (state) => adopt(state, { atStart: true }),
        (error: unknown) => error,
      ),
    );
  }

  const control: MockControl = {
    async reset() {
      await jobs.clear();
      await idempotencyKeys.clear();
      resetLocalState();
      share({ kind: 'reset' });
      await control.synced();
    },
    get scenario() {
      return scenario.name;
    },
    useScenario(choice) {
      const chosen = putInForce(choice);
      // A scenario object is shared whole, so replicas that never saw it can put it in force.
      share({ kind: 'use', scenario: choice });
      return chosen;
    },
    registerScenario(input) {
      const registered = register(input);
      share({ kind: 'register', scenario: input });
      return registered;
    },
    async synced() {
      const waiting = unconfirmed;
      unconfirmed = [];
      const failures = (await Promise.all(waiting)).filter((outcome) => outcome !== undefined);
      if (failures.length > 0) throw failures[0];
    },
    reloadStartingScenario(input, reloadOptions) {
      const parsed = parse(input);
      const previous = initialScenario;
      // The file's scenario lives as long as the engine, like any scenario given at creation.
      if (previous.name !== parsed.name && !builtinScenarioNames.has(previous.name)) startup.delete(previous.name);
      startup.set(parsed.name, parsed);
      initialScenario = parsed;
      const inForce = scenario === previous;
      if (inForce) {
        scenario = parsed;
        faults = newFaults();
      }
      journal.record({
        time: clock.now(),
        method: 'RELOAD',
        path: reloadOptions.source,
        status: 200,
        scenario: scenario.name,
        forced: false,
        durationMs: 0,
        note: inForce
          ? `scenario ${quote(parsed.name, 80)} reloaded from ${quote(reloadOptions.source, 200)} and put in force`
          : `scenario ${quote(parsed.name, 80)} reloaded from ${quote(reloadOptions.source, 200)}; ${quote(scenario.name, 80)}, chosen since, stays in force`,
      });
      return { scenario: parsed, inForce };
    },
    scenarios: () => registry.all(),
    async listJobs() {
      const all: JobInspection[] = [];
      let cursor: string | undefined;
      do {
        const page = await jobs.page({ limit: pageLimits.max, ...(cursor === undefined ? {} : { cursor }) });
        for (const [, entry] of page.entries) all.push(inspection(entry.value));
        cursor = page.next;
      } while (cursor !== undefined);
      return all;
    },
    async jobsPage(request = {}) {
      const limit = pageLimit(request.limit);
      let page: Awaited<ReturnType<typeof jobs.page>>;
      try {
        page = await jobs.page({
          limit,
          maxBytes: pageLimits.maxBytes,
          ...(request.cursor === undefined ? {} : { cursor: request.cursor }),
        });
      } catch (error) {
        if (error instanceof TypeError)
          throw new ControlError(`cursor ${quote(request.cursor ?? '', 40)} is not one this mock gave`, 'invalid');
        throw error;
      }
      const listed = page.entries.map(([, entry]) => inspection(entry.value));
      return page.next === undefined ? { jobs: listed } : { jobs: listed, nextCursor: page.next };
    },
    async inspectJob(jobId) {
      const entry = await jobs.get(jobId);
      return entry ? inspection(entry.value) : undefined;
    },
    advanceJob: (jobId) =>
      updateJob(jobId, (record) => {
        if (record.pinned || record.reached + 1 >= record.timeline.length) {
          throw new ControlError(`job ${quote(jobId, 140)} is ${jobView(record).status} and has no further step`, 'invalid');
        }
        return advanced(record);
      }),
    setJobState: ({ jobId, ...state }) => {
      // The state arrives from the control API as untrusted JSON: it must be a Job the
      // contract allows (enums, limits, no other property) before the mock serves it.
      const pinned = { jobId, ...state } as Job;
      const diagnostics = diagnose({ schema: contract.job, value: pinned });
      if (diagnostics.length > 0)
        return Promise.reject(new ControlError(`not a valid job state: ${describeDiagnostics(diagnostics)}`, 'invalid'));
      const { status, evaluation, limitations } = pinned;
      return updateJob(jobId, (record) => {
        const currentJob = jobView(record);
        const current = currentJob.status;
        if (isFinal(current) && canonicalJson(currentJob) !== canonicalJson(pinned)) {
          const target = status === current ? `${status} with another evaluation or limitations` : status;
          throw new ControlError(
            `job ${quote(jobId, 140)} cannot move from ${current} to ${target}: ${current} is final (docs/assumptions.md A-3)`,
            'invalid',
          );
        }
        const problem = transitionProblem(current, status);
        if (problem) throw new ControlError(`job ${quote(jobId, 140)} cannot move from ${current} to ${status}: ${problem}`, 'invalid');
        if ((status === 'COMPLETE') !== (evaluation !== undefined)) {
          throw new ControlError(
            status === 'COMPLETE' ? 'a COMPLETE job needs an evaluation' : `a ${status} job has no evaluation`,
            'invalid',
          );
        }
        if (limitations?.length && !isFinal(status))
          throw new ControlError('limitations appear only on COMPLETE or FAILED jobs', 'invalid');
        // No empty limitations array: none is shown as no property.
        const { limitations: _unused, ...rest } = pinned;
        return { ...record, pinned: limitations?.length ? { ...rest, limitations: [...limitations] } : rest };
      });
    },
    journal: () => journal.entries(),
    journalPage(request = {}) {
      const limit = pageLimit(request.limit);
      let cursor: number | undefined;
      if (request.cursor !== undefined) {
        cursor = /^[0-9]{1,15}$/.test(request.cursor) ? Number(request.cursor) : Number.NaN;
        // As the job store does: a cursor no page has given yet is refused, not answered empty.
        if (!(cursor < journal.nextSeq)) throw new ControlError(`cursor ${quote(request.cursor, 40)} is not one this mock gave`, 'invalid');
      }
      const page: JournalPage = journal.page({ limit, ...(cursor === undefined ? {} : { cursor }) });
      return page.next === undefined ? { entries: page.entries } : { entries: page.entries, nextCursor: page.next };
    },
    clearJournal: () => journal.clear(),
    coverage: () => watch.report(),
    resetCoverage: () => watch.clear(),
    pact: (parties) => watch.pact({ parties, contract }),
    providerState: (change) =>
      providerStatesFor({ handle, control, basePath, contract, invalid: (message) => new ControlError(message, 'invalid') })(change),
  };

  return { handle, answerCall, control, clock, close: () => latency.close() };
}
