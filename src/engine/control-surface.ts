/**
 * @module engine/control-surface
 * The engine's control surface: what tests and the control API (/__mock/) may do to a running
 * mock. Each call is carried out by the object that owns its state: the scenario in force
 * (ScenarioInForce), the replicas' agreement on it (ReplicaSync), the jobs (JobControl), the
 * journal and the consumer watch. Every scenario change is shared with the other replicas.
 */

import type { Job } from '../contract/index.js';
import type { ServerProfile } from '../profile/profile.js';
import type { Clock } from './clock.js';
import type { ConsumerReport, ConsumerWatch } from './consumer-watch.js';
import { ControlError, pageLimit } from './control-error.js';
import type { EngineContract } from './engine-contract.js';
import type { JobControl, JobInspection, JobStateChange } from './job-control.js';
import type { JobRecord } from './jobs.js';
import type { Journal, JournalEntry, JournalFilter, JournalOrder, JournalPage } from './journal.js';
import type { IdempotencyRecord } from './operations.js';
import { type PactParties, type PactV4, type ProviderStateChange, providerStatesFor } from './pact/index.js';
import type { ReplicaSync } from './replica-sync.js';
import { quote } from './responses.js';
import type { Scenario, ScenarioInput } from './scenario.js';
import type { ScenarioInForce } from './scenario-in-force.js';
import type { AllSessionsCoverage } from './session-reports.js';
import type { KeyValueStore } from './store.js';

/** One session as `sessions()` lists it. */
export interface SessionSummary {
  /** 'default' for the calls without `X-Mock-Session`. */
  readonly name: string;
  readonly scenario: string;
  /** Requests answered in the session. */
  readonly calls: number;
  /** Engine-clock milliseconds. */
  readonly createdAt: number;
  readonly lastUsedAt: number;
}

/** The sessions of one engine, as each session's control surface reaches them. */
export interface SessionDirectory {
  /** The session named `name` ('default' for the default one), made if new; ControlError for a name it refuses. */
  session(name: string): MockControl;
  /** The live session named `name`, or undefined: never makes one. */
  find(name: string): MockControl | undefined;
  /** A session for one control call, made apart until the call commits it (A-60: a refused call makes none). */
  open(name: string): ControlSessionOpening;
  /** Every live session, the default one first, then the most recently used first. */
  list(): readonly SessionSummary[];
  /** Coverage of every session, those ended before included. */
  coverageOfAll(): AllSessionsCoverage;
  /** The pact of every session's traffic. */
  pactOfAll(parties?: Partial<PactParties>): PactV4;
}

/** A session a control call acts on: `commit` once it has acted, `discard` when it refused (a new session then goes). */
export interface ControlSessionOpening {
  readonly control: MockControl;
  commit(): void;
  discard(): void;
}

/** Journal pages as the control surface gives them: `nextCursor`, when present, fetches the next page. */
export interface JournalRequest {
  readonly limit?: number;
  readonly cursor?: string;
  readonly filter?: JournalFilter;
  /** 'oldest' (default) or 'newest' first. */
  readonly order?: JournalOrder;
}

/** The engine's control surface (served over HTTP by the mock server's control API). */
export interface MockControl {
  /** This session's name: 'default' for calls without `X-Mock-Session`. */
  readonly sessionName: string;
  /**
   * The control surface of session `name` of the same engine, made if new: its own jobs,
   * Idempotency-Keys, scenario, journal, coverage and pact. Requests carrying
   * `X-Mock-Session: name` are answered in it. Throws ControlError for a name it refuses
   * (1 to 64 letters, digits, '.', '_', '-', '~').
   */
  session(name: string): MockControl;
  /** The live session named `name` ('default' for the default one), or undefined: unlike `session`, never makes one. */
  findSession(name: string): MockControl | undefined;
  /**
   * The session named `name` for one control call: a new one is kept apart until `commit()`
   * (after the call acted) or `discard()` (the call was refused), so that a refused call makes
   * no session and evicts none. Throws ControlError for a name it refuses.
   */
  openSession(name: string): ControlSessionOpening;
  /** Every live session of the engine (the admin view of `GET /__mock/sessions`). */
  sessions(): readonly SessionSummary[];
  /**
   * The calls this session answered that match `filter`, newest first (request verification:
   * "what did my test just send"). At most `limit` (default 100, at most 1000).
   */
  calls(filter?: JournalFilter & { readonly limit?: number }): readonly JournalEntry[];
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
  setJobState(options: JobStateChange): Promise<Job>;
  /** Every journal entry kept, oldest first. */
  journal(): readonly JournalEntry[];
  /**
   * One page of the journal's entries that match `filter`, oldest first (or newest first with
   * `order: 'newest'`), past `cursor` (an entry's `seq`, as `nextCursor` gives it).
   */
  journalPage(options?: JournalRequest): { entries: readonly JournalEntry[]; nextCursor?: string };
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
  /**
   * The coverage of every session of the engine, not this one's alone (what `mock
   * --coverage-report` writes at exit): the union of the sessions' coverage, with a breakdown
   * per session, sessions that ended before (evicted or idle) folded in (A-60).
   */
  coverageOfAllSessions(): AllSessionsCoverage;
  /**
   * One pact of every session's traffic (what `mock --pact-out` writes): an interaction per
   * behaviour any session showed, its comments naming those sessions.
   */
  pactOfAllSessions(parties?: Partial<PactParties>): PactV4;
  /** Forgets the coverage, the client findings and the behaviours `pact()` is written from. */
  resetCoverage(): void;
  /** A Pact V4 document, one interaction per behaviour answered so far (docs/pact.md); resetCoverage() forgets them. */
  pact(parties?: Partial<PactParties>): PactV4;
  /** Sets up a provider state such a pact names, as Pact's verifier asks; answers the values it made (`jobId`). */
  providerState(change: ProviderStateChange): Promise<Record<string, unknown>>;
  /**
   * The server profile in force (docs/profiles.md, A-50): where it came from, the entries it
   * declares, and every entry's value (declared or today's default).
   */
  profile(): ProfileInForce;
}

/** What `control.profile()` and `GET /__mock/profile` show. */
export interface ProfileInForce {
  readonly source: string;
  readonly declared: readonly string[];
  readonly entries: Readonly<Record<string, unknown>>;
}

export interface ControlSurfaceOptions {
  /** The session's name; '' for the default session. */
  readonly name: string;
  readonly directory: SessionDirectory;
  /** Resolves once a session new to this replica has adopted the state the replicas share. */
  readonly adopted: () => Promise<void>;
  readonly scenarios: ScenarioInForce;
  readonly sync: ReplicaSync;
  readonly jobControl: JobControl;
  readonly jobs: KeyValueStore<JobRecord>;
  readonly idempotencyKeys: KeyValueStore<IdempotencyRecord>;
  readonly journal: Journal;
  readonly watch: ConsumerWatch;
  readonly clock: Clock;
  readonly contract: EngineContract;
  /** Normalised: '' or a path such as '/api'. */
  readonly basePath: string;
  /** The engine's own answers: provider states are set up through the API, as a client would. */
  readonly handle: (request: Request) => Promise<Response>;
  /** Forgets what a reset forgets but the stores. */
  readonly resetLocal: () => void;
  readonly profile: ServerProfile;
}

export function createControlSurface(options: ControlSurfaceOptions): MockControl {
  const { scenarios, sync, jobControl, journal, watch } = options;
  const control: MockControl = {
    sessionName: options.name || 'default',
    session: (name) => options.directory.session(name),
    findSession: (name) => options.directory.find(name),
    openSession: (name) => options.directory.open(name),
    sessions: () => options.directory.list(),
    calls(filter = {}) {
      const { limit, ...only } = filter;
      return journal.page({ limit: pageLimit(limit), filter: only, order: 'newest' }).entries;
    },
    async reset() {
      await options.jobs.clear();
      await options.idempotencyKeys.clear();
      options.resetLocal();
      sync.share({ kind: 'reset' });
      await control.synced();
    },
    get scenario() {
      return scenarios.current.name;
    },
    useScenario(choice) {
      const chosen = scenarios.putInForce(choice);
      // A scenario object is shared whole, so replicas that never saw it can put it in force.
      sync.share({ kind: 'use', scenario: choice });
      return chosen;
    },
    registerScenario(input) {
      const registered = scenarios.register(input);
      sync.share({ kind: 'register', scenario: input });
      return registered;
    },
    async synced() {
      await options.adopted();
      await sync.synced();
    },
    reloadStartingScenario(input, reloadOptions) {
      const reloaded = scenarios.reloadStarting(input);
      const name = quote(reloaded.scenario.name, 80);
      const source = quote(reloadOptions.source, 200);
      journal.record({
        time: options.clock.now(),
        method: 'RELOAD',
        path: reloadOptions.source,
        status: 200,
        scenario: scenarios.current.name,
        forced: false,
        durationMs: 0,
        note: reloaded.inForce
          ? `scenario ${name} reloaded from ${source} and put in force`
          : `scenario ${name} reloaded from ${source}; ${quote(scenarios.current.name, 80)}, chosen since, stays in force`,
      });
      return reloaded;
    },
    scenarios: () => scenarios.all(),
    listJobs: () => jobControl.listJobs(),
    jobsPage: (request) => jobControl.jobsPage(request),
    inspectJob: (jobId) => jobControl.inspectJob(jobId),
    advanceJob: (jobId) => jobControl.advanceJob(jobId),
    setJobState: (change) => jobControl.setJobState(change),
    journal: () => journal.entries(),
    journalPage(request = {}) {
      const limit = pageLimit(request.limit);
      let cursor: number | undefined;
      if (request.cursor !== undefined) {
        cursor = /^[0-9]{1,15}$/.test(request.cursor) ? Number(request.cursor) : Number.NaN;
        // As the job store does: a cursor no page has given yet is refused, not answered empty.
        if (!(cursor < journal.nextSeq)) throw new ControlError(`cursor ${quote(request.cursor, 40)} is not one this mock gave`, 'invalid');
      }
      const page: JournalPage = journal.page({
        limit,
        ...(cursor === undefined ? {} : { cursor }),
        ...(request.filter ? { filter: request.filter } : {}),
        ...(request.order ? { order: request.order } : {}),
      });
      return page.next === undefined ? { entries: page.entries } : { entries: page.entries, nextCursor: page.next };
    },
    clearJournal: () => journal.clear(),
    coverage: () => watch.report(),
    profile: () => ({ source: options.profile.source, declared: [...options.profile.declared], entries: { ...options.profile.entries } }),
    resetCoverage: () => watch.clear(),
    pact: (parties) => watch.pact({ parties, contract: options.contract }),
    coverageOfAllSessions: () => options.directory.coverageOfAll(),
    pactOfAllSessions: (parties) => options.directory.pactOfAll(parties),
    providerState: (change) => providerStates(change),
  };
  const providerStates = providerStatesFor({
    handle: options.handle,
    control,
    basePath: options.basePath,
    contract: options.contract,
    invalid: (message) => new ControlError(message, 'invalid'),
  });
  return control;
}
