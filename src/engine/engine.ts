/**
 * @module engine/engine
 * The isomorphic mock of the whole contract: a Fetch Request in, a Response out. One pipeline
 * of named stages — route → scenario and faults → operation (validate, act on state) →
 * respond and journal — served unchanged by the node:http adapter and by MSW handlers.
 */
import type { Scrubber } from '../contract/secrets.js';
import { profileOption } from '../profile/profile.js';
import { answerToResponse, callFromRequest, type EngineAnswer, type EngineCall } from './call.js';
import { type Clock, systemClock } from './clock.js';
import { ControlError } from './control-error.js';
import type { MockControl, SessionDirectory } from './control-surface.js';
import { credentialScrubber, learnCallCredentials } from './credentials.js';
import { contractOption } from './engine-contract.js';
import type { JobRecord } from './jobs.js';
import type { JournalEntry } from './journal.js';
import { LatencyWaits } from './latency.js';
import type { IdempotencyRecord } from './operations.js';
import { createRandom } from './random.js';
import type { ReplicaLink } from './replica-link.js';
import { errorAnswer } from './responses.js';
import type { ScenarioInput } from './scenario.js';
import { createSession, type MockSession, type SessionContext, type SessionLimits, type SessionShare } from './session.js';
import { SessionBook, sessionHeader } from './session-book.js';
import { SessionReports } from './session-reports.js';
import type { KeyValueStore } from './store.js';
import type { IssuerKeySet } from './verification/artifact-profile.js';
import { testKeySet } from './verification/test-keys.js';

export { ControlError, pageLimits } from './control-error.js';
export type { JournalRequest, MockControl, SessionSummary } from './control-surface.js';
export type { JobInspection } from './job-control.js';
export type { SessionShare, SessionUse } from './session.js';
export type { AllSessionsCoverage, SessionCoverage } from './session-reports.js';

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
  /** Named sessions kept at once; the least recently used is evicted past it. */
  maxSessions: 128,
  /** Bytes of one named session's jobs, keys, journal and scenarios. */
  maxSessionBytes: 4 * mebibyte,
  /** A named session unused this long is forgotten. */
  sessionIdleMs: 30 * 60 * 1000,
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
   * What a named session shares with the other replicas (its stores, link and journal sink,
   * apart from every other session's), asked once when this engine first meets the session
   * . Default: a named session's state lives in this engine alone.
   */
  readonly sessionShare?: (session: string) => SessionShare;
  /** Told of what an operator should know, one line each: a session evicted or expired. */
  readonly log?: (line: string) => void;
  /**
   * A server profile (docs/profiles.md, A-50): a parsed profile document or one resolved with
   * `resolveProfile`. The mock then answers every declared point as the profile says, in every
   * session. Default: today's behaviour. A profile that would break a rule of the contract throws
   * ProfileError.
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
  /**
   * Knows every value a caller sent in a credential header (bounded, oldest forgotten first),
   * in any session: what the mock writes (request log, journal and coverage exports, pact) goes
   * through it, so a token the client also put in a path or a body is not repeated.
   * Optional, so an engine of your own need not have it.
   */
  readonly scrubber?: Scrubber;
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
type ResolvedLimits = { readonly [Name in keyof typeof defaultLimits]: number };

function resolveLimits(given: EngineLimits = {}): ResolvedLimits {
  const limits: Record<string, number> = { ...defaultLimits };
  for (const [name, value] of Object.entries(given)) {
    if (value === undefined) continue;
    if (!(name in defaultLimits))
      throw new TypeError(`createMockEngine: unknown limit '${name}'; known: ${Object.keys(defaultLimits).join(', ')}`);
    if (!(Number.isFinite(value) && value >= 1))
      throw new RangeError(`createMockEngine: limits.${name} must be a number ≥ 1, got ${value}`);
    limits[name] = value;
  }
  return limits as ResolvedLimits;
}

/** A named session's share of the engine's bounds: a fixed split of `maxSessionBytes`. */
function namedSessionLimits(limits: ResolvedLimits): SessionLimits {
  const bytes = limits.maxSessionBytes;
  return {
    ...limits,
    maxJobBytes: Math.min(limits.maxJobBytes, Math.max(1, Math.floor(bytes * 0.4))),
    maxIdempotencyKeyBytes: Math.min(limits.maxIdempotencyKeyBytes, Math.max(1, Math.floor(bytes * 0.3))),
    maxJournalBytes: Math.min(limits.maxJournalBytes, Math.max(1, Math.floor(bytes * 0.1))),
    maxScenarioRegistryBytes: Math.min(limits.maxScenarioRegistryBytes, Math.max(1, Math.floor(bytes * 0.2))),
  };
}

export function createMockEngine(options: MockEngineOptions = {}): MockEngine {
  const clock = options.clock ?? systemClock;
  const limits = resolveLimits(options.limits);
  const latency = new LatencyWaits(clock);
  const scrubber = credentialScrubber();
  // A session's name is the caller's text: a line naming it is scrubbed like the rest.
  const log = options.log && ((line: string) => options.log!(scrubber.scrub(line)));
  let book: SessionBook | undefined;
  let defaultControl: MockControl | undefined;
  const reports = new SessionReports();
  const liveControls = () => [defaultControl!, ...book!.live().map((session) => session.control)];
  const directory: SessionDirectory = {
    session: (name) => book!.resolve(name).control,
    find: (name) => book!.find(name)?.control,
    open: (name) => {
      const opening = book!.open(name);
      return { control: opening.session.control, commit: opening.commit, discard: opening.discard };
    },
    list: () => book!.list(),
    coverageOfAll: () => reports.coverage(liveControls()),
    pactOfAll: (parties) => reports.pact(liveControls(), parties),
  };
  const context: SessionContext = {
    contract: contractOption(options.spec),
    profile: profileOption(options.profile),
    basePath: normalizeBasePath(options.basePath),
    clock,
    latency,
    issuerKeys: options.issuerKeys ?? testKeySet,
    scenario: options.scenario,
    scenarios: options.scenarios,
    seed: options.seed,
    journalCapacity: options.journalCapacity ?? 1000,
    // Replicas would share a seed: their job ids come from fresh random bytes instead.
    unseeded: createRandom(),
    directory,
  };
  const defaultSession = createSession({
    name: '',
    context,
    limits,
    share: {
      ...(options.stores ? { stores: options.stores } : {}),
      ...(options.replicaLink ? { replicaLink: options.replicaLink } : {}),
      ...(options.onJournalEntry ? { onJournalEntry: options.onJournalEntry } : {}),
    },
  });
  defaultControl = defaultSession.control;
  const sessionLimits = namedSessionLimits(limits);
  book = new SessionBook({
    defaultSession,
    create: (name) => createSession({ name, context, limits: sessionLimits, share: options.sessionShare?.(name) }),
    clock,
    maxSessions: limits.maxSessions,
    idleMs: limits.sessionIdleMs,
    log,
    // A store shared by replicas renews the session's keys and notes it for every replica's listing.
    onUse: (session) => session.touch(),
    // What a session showed is kept for the reports written at exit when it ends before.
    onEnd: (session, how) => reports.sessionEnded(session.control, how),
  });
  const sessions = book;
  const answerCall = (call: EngineCall): Promise<EngineAnswer> => {
    learnCallCredentials(call, scrubber);
    const name = call.header(sessionHeader);
    if (name === null) return defaultSession.answer(call);
    let session: MockSession;
    try {
      session = sessions.resolve(name);
    } catch (error) {
      if (!(error instanceof ControlError)) throw error;
      call.discardBody();
      const answer = errorAnswer({ status: 400, code: 'invalid_request', message: error.message });
      return Promise.resolve(call.method.toUpperCase() === 'HEAD' ? { ...answer, body: null } : answer);
    }
    return session.answer(call);
  };
  const handle = async (request: Request): Promise<Response> => answerToResponse(await answerCall(callFromRequest(request)));
  return {
    handle,
    answerCall,
    control: defaultSession.control,
    clock,
    scrubber,
    close: () => {
      latency.close();
      sessions.closeAll();
    },
  };
}
