/**
 * @module engine/session
 * One session of a mock engine (docs/assumptions.md A-60): everything a test can change and
 * read back — jobs and their timelines, Idempotency-Keys, the scenario in force, the journal,
 * coverage and pact — owned apart from every other session's. The default session is the
 * engine as it always was; a call carrying `X-Mock-Session: NAME` is answered by session NAME
 * (session-book.ts). What no test changes (the contract, the clock, the latency waits, the
 * issuers' keys) is shared by all of an engine's sessions.
 */
import type { ServerProfile } from '../profile/profile.js';
import { answerToResponse, callFromRequest, type EngineAnswer, type EngineCall } from './call.js';
import type { Clock } from './clock.js';
import { ConsumerWatch } from './consumer-watch.js';
import { createControlSurface, type MockControl, type SessionDirectory } from './control-surface.js';
import type { EngineContract } from './engine-contract.js';
import { JobControl } from './job-control.js';
import type { JobRecord } from './jobs.js';
import { Journal, type JournalEntry } from './journal.js';
import type { LatencyWaits } from './latency.js';
import type { IdempotencyRecord } from './operations.js';
import type { Random } from './random.js';
import type { ReplicaLink } from './replica-link.js';
import { ReplicaSync } from './replica-sync.js';
import { RequestPipeline } from './request-pipeline.js';
import type { ScenarioInput } from './scenario.js';
import { ScenarioInForce } from './scenario-in-force.js';
import { idempotencyRecordBytes, jobRecordBytes } from './sizes.js';
import { type KeyValueStore, MemoryStore } from './store.js';
import type { IssuerKeySet } from './verification/artifact-profile.js';

/**
 * What a session shares with the other replicas of a mock on a networked store:
 * its own stores, link and journal sink, kept apart from every other session's in the store.
 */
export interface SessionShare {
  readonly stores?: {
    readonly jobs?: KeyValueStore<JobRecord>;
    readonly idempotencyKeys?: KeyValueStore<IdempotencyRecord>;
  };
  readonly replicaLink?: ReplicaLink;
  readonly onJournalEntry?: (entry: JournalEntry) => void;
  /**
   * Told of each use of the session (a call answered in it, a control call): renews the
   * session's keys in the store, so they all expire with it, and notes it in the registry of
   * every replica's sessions.
   */
  touch?(use: SessionUse): void;
  /** Lets go of what this replica holds open for the session (its state stays in the store). */
  close?(): void;
}

/** What a session's use tells the store: the scenario in force in it and the calls it answered here. */
export interface SessionUse {
  readonly scenario: string;
  readonly calls: number;
}

/** The bounds of one session's state (the engine's limits, or a named session's share of them). */
export interface SessionLimits {
  readonly maxJobs: number;
  readonly maxIdempotencyKeys: number;
  readonly jobTtlMs: number;
  readonly idempotencyKeyTtlMs: number;
  readonly maxJobBytes: number;
  readonly maxIdempotencyKeyBytes: number;
  readonly maxJournalBytes: number;
  readonly maxScenarioRegistryBytes: number;
  readonly maxRegisteredScenarios: number;
}

/** What every session of one engine shares. */
export interface SessionContext {
  readonly contract: EngineContract;
  /** The server profile in force, the same for every session. */
  readonly profile: ServerProfile;
  /** Normalised: '' or a path such as '/api'. */
  readonly basePath: string;
  readonly clock: Clock;
  readonly latency: LatencyWaits;
  readonly issuerKeys: IssuerKeySet;
  readonly scenario: string | ScenarioInput | undefined;
  readonly scenarios: readonly ScenarioInput[] | undefined;
  readonly seed: number | undefined;
  readonly journalCapacity: number;
  /** Fresh random bytes, for job ids of replicas (which would share a seed). */
  readonly unseeded: Random;
  readonly directory: SessionDirectory;
}

export interface MockSession {
  readonly name: string;
  readonly control: MockControl;
  /** Answers one call in this session. Never throws. */
  answer(call: EngineCall): Promise<EngineAnswer>;
  /** Requests answered so far. */
  readonly calls: number;
  /** Told of each use, for a store shared by replicas (SessionShare.touch). */
  touch(): void;
  close(): void;
}

/** A session's seed: the engine's, mixed with its name (FNV-1a), so sessions draw different job ids, reproducibly. */
function sessionSeed(seed: number | undefined, name: string): number | undefined {
  if (seed === undefined || name === '') return seed;
  let hash = 0x811c9dc5;
  for (let index = 0; index < name.length; index += 1) hash = Math.imul(hash ^ name.charCodeAt(index), 0x01000193);
  return (seed ^ hash) >>> 0;
}

/**
 * Builds one session. `name` is '' for the default session (whose seed is the engine's own,
 * so runs with `--seed` draw the job ids they always drew).
 */
export function createSession(options: {
  readonly name: string;
  readonly context: SessionContext;
  readonly limits: SessionLimits;
  readonly share?: SessionShare | undefined;
}): MockSession {
  const { context, limits, share } = options;
  const { clock, contract, basePath } = context;
  const link = share?.replicaLink;
  const scenarios = new ScenarioInForce({
    contract,
    scenario: context.scenario,
    scenarios: context.scenarios,
    seed: sessionSeed(context.seed, options.name),
    maxRegistryBytes: limits.maxScenarioRegistryBytes,
    maxRegistered: limits.maxRegisteredScenarios,
    faultCounter: link ? (key) => link.countFault(key) : undefined,
  });
  const jobs =
    share?.stores?.jobs ??
    new MemoryStore<JobRecord>({
      clock,
      maxEntries: limits.maxJobs,
      ttlMs: limits.jobTtlMs,
      maxBytes: limits.maxJobBytes,
      sizeOf: jobRecordBytes,
    });
  const idempotencyKeys =
    share?.stores?.idempotencyKeys ??
    new MemoryStore<IdempotencyRecord>({
      clock,
      maxEntries: limits.maxIdempotencyKeys,
      ttlMs: limits.idempotencyKeyTtlMs,
      maxBytes: limits.maxIdempotencyKeyBytes,
      sizeOf: idempotencyRecordBytes,
    });
  const journal = new Journal({ capacity: context.journalCapacity, maxBytes: limits.maxJournalBytes });
  const watch = new ConsumerWatch();
  const pipeline = new RequestPipeline({
    contract,
    basePath,
    scenarios,
    clock,
    latency: context.latency,
    jobs,
    idempotencyKeys,
    issuerKeys: context.issuerKeys,
    jobIdRandom: link ? () => context.unseeded : () => scenarios.random,
    journal,
    watch,
    onJournalEntry: share?.onJournalEntry,
    profile: context.profile,
  });
  const resetLocal = () => {
    journal.clear();
    watch.afterReset();
    scenarios.reset();
  };
  const sync = new ReplicaSync({ link, scenarios, resetLocal });
  // A session new to this replica first adopts what the others share of it; until then its
  // first answers wait (a lone mock has nothing to wait for).
  // A first read that failed is told to the first `synced()` (the server's start), as before sessions.
  let loadFailure: unknown;
  let adopting: Promise<void> | undefined = link
    ? sync.synced().then(
        () => undefined,
        (error: unknown) => {
          loadFailure = error;
        },
      )
    : undefined;
  adopting?.then(() => {
    adopting = undefined;
  });
  const adopted = async () => {
    if (adopting) await adopting;
    if (loadFailure === undefined) return;
    const failure = loadFailure;
    loadFailure = undefined;
    throw failure;
  };
  const answer = async (call: EngineCall): Promise<EngineAnswer> => {
    if (adopting) await adopting;
    return pipeline.answer(call);
  };
  const control = createControlSurface({
    name: options.name,
    contract,
    basePath,
    handle: async (request) => answerToResponse(await answer(callFromRequest(request))),
    scenarios,
    sync,
    adopted,
    jobControl: new JobControl({ jobs, clock, contract }),
    jobs,
    idempotencyKeys,
    journal,
    watch,
    clock,
    resetLocal,
    directory: context.directory,
    profile: context.profile,
  });
  return {
    name: options.name,
    control,
    answer,
    get calls() {
      return journal.nextSeq - 1;
    },
    touch: () => share?.touch?.({ scenario: scenarios.current.name, calls: journal.nextSeq - 1 }),
    close: () => share?.close?.(),
  };
}
