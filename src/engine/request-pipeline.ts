/**
 * @module engine/request-pipeline
 * One call through the engine's named stages: route → scenario and faults (a `Prefer` header
 * first) → operation (validate, act on state) → journal and consumer watch. Whatever fails
 * inside still answers as the contract allows: a shared store out of reach is a 503, anything
 * else a 500 with the reason and never a stack trace.
 */

import { wellFormedCredentials } from '../contract/authorization.js';
import { truncate } from '../contract/error-body.js';
import { credentialOf, credentialRefusal, profiledHeaders } from '../profile/engine-headers.js';
import { profiledError } from '../profile/engine-profile.js';
import type { ServerProfile } from '../profile/profile.js';
import type { EngineAnswer, EngineCall } from './call.js';
import { anonymousCaller, callerFingerprint } from './caller.js';
import type { Clock } from './clock.js';
import type { ConsumerWatch } from './consumer-watch.js';
import type { EngineContract } from './engine-contract.js';
import { answerFromExamples } from './example-operations.js';
import { type ForcedAnswer, forcedError } from './faults.js';
import type { JobRecord } from './jobs.js';
import type { Journal, JournalEntry } from './journal.js';
import type { LatencyWaits } from './latency.js';
import { methodAnswer } from './method-handling.js';
import type { IdempotencyRecord, OperationContext, OperationResult, ReadQueues } from './operations.js';
import * as operations from './operations.js';
import type { Random } from './random.js';
import { type EngineError, errorAnswer } from './responses.js';
import { isEngineError, matchRoute, type OperationId } from './router.js';
import { forcibleStatuses, isForcible, type Scenario } from './scenario.js';
import type { ScenarioInForce } from './scenario-in-force.js';
import { type KeyValueStore, StoreUnavailableError } from './store.js';
import type { IssuerKeySet } from './verification/artifact-profile.js';

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

/** The caller's credential under the default profile: any well-formed Authorization value. */
function defaultCredential(call: EngineCall): string | null {
  const value = call.header('authorization');
  return value && wellFormedCredentials(value) ? value : null;
}

const handlers: Record<OperationId, (context: OperationContext) => Promise<OperationResult>> = {
  health: operations.health,
  createEvaluation: operations.createEvaluation,
  verifyReport: operations.verifyReport,
  getJob: operations.getJob,
};

/** What a stage decided: the answer, and what the journal records of it. */
interface Outcome {
  readonly result: OperationResult;
  readonly entry: Omit<JournalEntry, 'seq' | 'time' | 'method' | 'path' | 'status' | 'durationMs' | 'code' | 'jobId'>;
  /** The caller's fingerprint, once the call is routed to an operation (the consumer watch reuses it). */
  readonly caller?: string;
}

export interface RequestPipelineOptions {
  readonly contract: EngineContract;
  /** Normalised: '' or a path such as '/api'. */
  readonly basePath: string;
  readonly scenarios: ScenarioInForce;
  readonly clock: Clock;
  readonly latency: LatencyWaits;
  readonly jobs: KeyValueStore<JobRecord>;
  readonly idempotencyKeys: KeyValueStore<IdempotencyRecord>;
  readonly issuerKeys: IssuerKeySet;
  /** The draw job ids come from (the seeded one, or fresh bytes for replicas). */
  readonly jobIdRandom: () => Random;
  readonly journal: Journal;
  readonly watch: ConsumerWatch;
  readonly onJournalEntry?: ((entry: JournalEntry) => void) | undefined;
  /** The server profile in force; the default one changes nothing. */
  readonly profile: ServerProfile;
}

export class RequestPipeline {
  /** Creates in progress by caller-scoped Idempotency-Key (operations.ts, oneAtATime). */
  private readonly creating = new Map<string, Promise<unknown>>();
  /** Reads of each job waiting their batch (operations.ts, queueRead). */
  private readonly reading: ReadQueues = new Map();
  /** The document's patterns compiling (engine-contract): awaited by the answers that come first. */
  private contractReady: Promise<void> | undefined;

  constructor(private readonly options: RequestPipelineOptions) {
    this.contractReady = options.contract.ready;
    this.contractReady?.then(
      () => {
        this.contractReady = undefined;
      },
      // Kept: every answer then fails with the reason, as a 500 (the mock server checks it at start).
      () => undefined,
    );
  }

  /** Answers one call, journals it and shows it to the consumer watch. Never throws. */
  async answer(call: EngineCall): Promise<EngineAnswer> {
    const { clock, journal, watch, scenarios } = this.options;
    const started = clock.now();
    let outcome: Outcome;
    const watched = watch.begin(call);
    try {
      if (this.contractReady) await this.contractReady;
      outcome = await this.run(watched.call);
    } catch (error) {
      // A bug in the mock must still answer as the contract allows, without a stack trace; a
      // shared store out of reach is the service being unavailable, for a while.
      const failure: EngineError =
        error instanceof StoreUnavailableError
          ? {
              status: 503,
              code: 'service_unavailable',
              message: error.message,
              headers: { 'retry-after': '1' },
              situation: 'A-8.unavailable',
            }
          : {
              status: 500,
              code: 'internal_error',
              message: `The mock failed while answering: ${String((error as Error)?.message ?? error).slice(0, 300)}`,
              situation: 'A-8.server-failure',
            };
      outcome = {
        result: { answer: errorAnswer(failure), code: failure.code, error: failure },
        entry: { scenario: scenarios.current.name, forced: false },
      };
    }
    if (!this.options.profile.isDefault) outcome = this.profiled(outcome, call);
    // Kept for request verification: which create was retried with which key.
    const key = outcome.entry.operationId === 'createEvaluation' ? call.header('idempotency-key') : null;
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
      ...(key ? { idempotencyKey: key.slice(0, 255) } : {}),
    };
    const recorded = journal.record(entry);
    if (recorded) this.options.onJournalEntry?.(recorded);
    watched.end({ entry, answer: outcome.result.answer, caller: outcome.caller, job: outcome.result.job });
    // HEAD answers, errors included, carry the headers of the GET answer and no body.
    if (call.method.toUpperCase() === 'HEAD') return { ...outcome.result.answer, body: null };
    return outcome.result.answer;
  }

  /** The outcome as the profile in force answers its refusal's situation. */
  private profiled(outcome: Outcome, call: EngineCall): Outcome {
    const { profile } = this.options;
    const error = outcome.result.error;
    const answered = error?.situation ? profiledError(error, profile, outcome.entry.operationId) : error;
    const result =
      answered === error ? outcome.result : { ...outcome.result, answer: errorAnswer(answered!), code: answered!.code, error: answered };
    // The headers a declared entry gives this class of answer (format 2: Location, Cache-Control…).
    const { answer } = result;
    const headers = profiledHeaders(
      answer.headers,
      {
        operationId: outcome.entry.operationId,
        status: answer.status,
        error: error !== undefined,
        replayed: result.replayed,
        jobId: result.jobId,
        origin: () => call.origin?.(),
      },
      profile,
    );
    if (result === outcome.result && headers === answer.headers) return outcome;
    return { ...outcome, result: { ...result, answer: { ...answer, headers } } };
  }

  private async run(call: EngineCall): Promise<Outcome> {
    const { contract, basePath, scenarios } = this.options;
    const pathname = call.pathname;
    // The base path is a whole number of segments: /api covers /api/health, not /apiv0/health.
    const underBase = !basePath || pathname === basePath || pathname.startsWith(`${basePath}/`);
    const { profile } = this.options;
    const relative = pathname.slice(basePath.length) || '/';
    // A profile may answer OPTIONS or refuse HEAD on a contract path.
    const own =
      underBase && !profile.isDefault ? methodAnswer({ method: call.method, path: relative, routes: contract.routes, profile }) : undefined;
    if (own) {
      call.discardBody();
      const entry = { scenario: scenarios.current.name, forced: false };
      return 'answer' in own ? { result: { answer: own.answer }, entry } : this.refused(own.refusal, entry);
    }
    const route = underBase
      ? matchRoute({ method: call.method, path: relative, routes: contract.routes, allowAdds: profile.entries['A-20.allow'].adds })
      : ({
          status: 404,
          code: 'route_not_found',
          situation: 'A-20.unknown-route',
          message: `The contract is served under ${basePath}; ${pathname.slice(0, 200)} is outside it.`,
        } satisfies EngineError);
    if (isEngineError(route)) return this.refused(route, { scenario: scenarios.current.name, forced: false });
    const examples = contract.exampleOperations.get(route.operationId);
    if (examples) {
      const preferred = Number(preferencesOf(call).code);
      const result = await answerFromExamples({
        operation: examples,
        call,
        params: route.params,
        ...(Number.isInteger(preferred) ? { preferredStatus: preferred } : {}),
      });
      return { result, entry: { operationId: route.operationId, scenario: scenarios.current.name, forced: false } };
    }
    if (!Object.hasOwn(handlers, route.operationId)) {
      const message = `The document names ${truncate(route.operationId, 80)}, which the mock cannot serve.`;
      return this.refused({ status: 404, code: 'route_not_found', message }, { scenario: scenarios.current.name, forced: false });
    }
    return await this.operate({ call, operationId: route.operationId as OperationId, params: route.params });
  }

  /** Stages 2 and 3 for an operation with behaviour: preferences and faults, then the operation. */
  private async operate(options: {
    call: EngineCall;
    operationId: OperationId;
    params: Readonly<Record<string, string>>;
  }): Promise<Outcome> {
    const { call, operationId } = options;
    const { scenarios, latency } = this.options;
    const { profile } = this.options;
    // Health is anyone's: its caller is never fingerprinted. A malformed Authorization
    // (`Bearer a b c`) or another scheme's is no credential: anonymous by default, refused where
    // a profile refuses (A-54; format 2 tells the three conditions apart).
    const read = operationId === 'health' || profile.isDefault ? undefined : credentialOf(call.header, profile);
    const credential =
      operationId === 'health' ? null : profile.isDefault ? defaultCredential(call) : read && 'credential' in read ? read.credential : null;
    const caller = operationId === 'health' ? anonymousCaller : await callerFingerprint(credential);
    const refused = read && 'condition' in read ? credentialRefusal(read.condition, profile) : 'anonymous';
    if (refused !== 'anonymous' && read && 'condition' in read) {
      call.discardBody();
      const header = profile.entries['A-10.caller'].header;
      const because = {
        missing: `This operation needs credentials in the ${header} header`,
        malformed: `The ${header} header is not credentials by RFC 9110's syntax (auth-scheme, then one token68 or name=value parameters)`,
        'other-scheme': `The ${header} header uses another scheme than ${profile.entries['A-10.caller'].scheme}`,
      }[read.condition];
      const refusal: EngineError = { ...refused, message: `${because} (the profile in force, A-10).` };
      return this.refused(refusal, { operationId, scenario: scenarios.current.name, forced: false }, caller);
    }
    // Health documents only 200: no preference, valid or not, changes its answer.
    const preferences = operationId === 'health' ? noPreferences : this.usablePreferences(operationId, preferencesOf(call));
    if (isEngineError(preferences))
      return this.refused(preferences, { operationId, scenario: scenarios.current.name, forced: false }, caller);
    const active = (preferences.scenario && scenarios.get(preferences.scenario)) || scenarios.current;
    const base = { operationId, scenario: active.name };
    const forced = await this.forcedAnswer(operationId, active, preferences);
    if (forced) {
      call.discardBody();
      await latency.wait(forced.latencyMs + active.latencyMs);
      return {
        result: { answer: errorAnswer(forced.error), code: forced.error.code, error: forced.error },
        entry: { ...base, forced: true },
        caller,
      };
    }
    if (active.latencyMs > 0) await latency.wait(active.latencyMs);
    const context: OperationContext = {
      call,
      params: options.params,
      caller,
      scenario: active,
      clock: this.options.clock,
      random: this.options.jobIdRandom(),
      jobs: this.options.jobs,
      idempotencyKeys: this.options.idempotencyKeys,
      issuerKeys: this.options.issuerKeys,
      creating: this.creating,
      reading: this.reading,
      contract: this.options.contract,
      profile,
    };
    const result = await handlers[operationId](context);
    return { result, entry: { ...base, forced: false }, caller };
  }

  private refused(error: EngineError, entry: Outcome['entry'], caller?: string): Outcome {
    return { result: { answer: errorAnswer(error), code: error.code, error }, entry, ...(caller === undefined ? {} : { caller }) };
  }

  /**
   * Checks the call's preferences against what this operation may answer. An unusable one is
   * refused with 400 where the operation documents 400; getJob documents none, so there it is
   * ignored, as RFC 7240 lets a server ignore a preference.
   */
  private usablePreferences(operationId: OperationId, preferences: Preferences): Preferences | EngineError {
    const { scenarios } = this.options;
    const problems: string[] = [];
    const usable: Preferences = {};
    if (preferences.scenario !== undefined) {
      if (scenarios.has(preferences.scenario)) usable.scenario = preferences.scenario;
      else problems.push(`Prefer: scenario=${truncate(preferences.scenario, 80)} names no scenario; known: ${scenarios.describeNames()}.`);
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
  private async forcedAnswer(operationId: OperationId, active: Scenario, preferences: Preferences): Promise<ForcedAnswer | undefined> {
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
    return await this.options.scenarios.faults.decide({ scenario: active, operationId });
  }
}
