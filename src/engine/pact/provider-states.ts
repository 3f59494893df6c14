/**
 * @module engine/pact/provider-states
 * The mock as a Pact provider: the state-change call Pact's verifier makes before each
 * interaction (`{ "state", "params", "action": "setup" | "teardown" }`), for the states a pact
 * written by the mock names (state-names.ts). Each setup starts from a reset mock, so that an
 * interaction never depends on the ones verified before it, then makes the state with the
 * engine's own operations (a create, then setJobState) and answers the values it made
 * (`{ "jobId": … }`) for the pact's provider-state generators. The body is untrusted JSON: every
 * field is checked, and an unknown state or a bad value is refused with an error naming it (a 400);
 * properties a verifier may add beside the three are ignored.
 */
import { quote } from '../responses.js';
import { knownStateNames, parseJobStateName, stateNames } from './state-names.js';

/** One state change, as Pact's verifier posts it to the provider-states URL. */
export interface ProviderStateChange {
  readonly state: string;
  readonly params?: Readonly<Record<string, unknown>>;
  /** Default 'setup'. */
  readonly action?: 'setup' | 'teardown';
}

/** What the state handlers need of the engine, given by createMockEngine. */
export interface ProviderStateDependencies {
  /** Answers a request as the mock would (the setup's own create goes through it). */
  readonly handle: (request: Request) => Promise<Response>;
  readonly reset: () => Promise<void>;
  readonly setJobState: (options: {
    jobId: string;
    status: string;
    evaluation?: string;
    limitations?: readonly string[];
  }) => Promise<unknown>;
  /** createEvaluation's path, base path included. */
  readonly createPath: string;
  readonly jobStatuses: readonly string[];
  /** Thrown for a change that cannot be made; the control API answers it with 400. */
  readonly invalid: (message: string) => Error;
}

/** A valid EvaluationRequest of the setup's own, for the job a state needs before the interaction. */
const setupRequest = {
  profile: 'svc.payment-conformance/0.1-draft',
  operationId: 'evidence-harness-provider-state',
  instructionDigest: '0'.repeat(64),
  policyDigest: '0'.repeat(64),
  evidence: [{ id: 'evidence-harness-provider-state', kind: 'issuer_assertion' }],
} as const;

/** Another caller than any a verifier sends (it sends none against the mock: the pact has no credential). */
const otherCaller = 'Bearer evidence-harness-provider-state-other-caller';

const maxStateNameLength = 512;

/** The Idempotency-Key of the setup's own creates; the mock was reset just before, so it is always new. */
const setupKey = 'evidence-harness-provider-state';

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export function createProviderStates(dependencies: ProviderStateDependencies): (change: unknown) => Promise<Record<string, unknown>> {
  const { invalid } = dependencies;

  /** Creates a job through the mock itself; `manual`, so no timeline moves it before the interaction reads it. */
  async function createJob(options: { idempotencyKey: string; body: unknown; authorization?: string }): Promise<string> {
    const response = await dependencies.handle(
      new Request(`http://provider-state.invalid${dependencies.createPath}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'idempotency-key': options.idempotencyKey,
          prefer: 'scenario=manual',
          ...(options.authorization ? { authorization: options.authorization } : {}),
        },
        body: JSON.stringify(options.body),
      }),
    );
    const answer = (await response.json().catch(() => undefined)) as Record<string, unknown> | undefined;
    if (response.status !== 202 || typeof answer?.jobId !== 'string') {
      const code = typeof answer?.code === 'string' ? ` ${quote(answer.code, 80)}` : '';
      throw invalid(`setting up the provider state failed: its job's create was answered ${response.status}${code}`);
    }
    return answer.jobId;
  }

  function stringParam(params: Record<string, unknown>, name: string, options: { required: boolean; max: number }): string | undefined {
    const value = params[name];
    if (value === undefined && !options.required) return undefined;
    if (typeof value !== 'string' || value.length === 0 || value.length > options.max) {
      throw invalid(`params.${name} must be a string of 1 to ${options.max} characters`);
    }
    return value;
  }

  /** The job state `params` ask for, checked; `named` is what the state's name says, which they must agree with. */
  function askedJobState(
    params: Record<string, unknown>,
    named: { status: string; evaluation?: string } | undefined,
  ): { status: string; evaluation?: string; limitations?: string[] } | undefined {
    const status = stringParam(params, 'status', { required: false, max: 64 }) ?? named?.status;
    const evaluation = stringParam(params, 'evaluation', { required: false, max: 64 }) ?? named?.evaluation;
    if (status === undefined) {
      if (evaluation !== undefined) throw invalid('params.evaluation needs params.status');
      return undefined;
    }
    if (named && (status !== named.status || evaluation !== named.evaluation)) {
      throw invalid(`params (status ${quote(status, 64)}, evaluation ${quote(String(evaluation), 64)}) disagree with the state's name`);
    }
    if (!dependencies.jobStatuses.includes(status)) {
      throw invalid(`${quote(status, 64)} is not a job state of the contract served (${dependencies.jobStatuses.join(', ')})`);
    }
    const limitations = params.limitations;
    if (limitations !== undefined && !(Array.isArray(limitations) && limitations.every((item) => typeof item === 'string'))) {
      throw invalid('params.limitations must be an array of strings');
    }
    return {
      status,
      ...(evaluation === undefined ? {} : { evaluation }),
      ...(limitations === undefined ? {} : { limitations: limitations as string[] }),
    };
  }

  /** Creates the state's job and, when a state is asked, pins it there: even QUEUED, so the interaction's reads cannot move it on. */
  async function jobFor(options: {
    idempotencyKey: string;
    body: unknown;
    authorization?: string;
    state?: ReturnType<typeof askedJobState>;
  }): Promise<Record<string, unknown>> {
    const { state, ...create } = options;
    const jobId = await createJob(create);
    if (state) await dependencies.setJobState({ jobId, ...state });
    return { jobId };
  }

  /** What setting `state` up does, its params checked first: a refused change leaves the mock as it was. */
  function planFor(state: string, params: Record<string, unknown>): () => Promise<Record<string, unknown>> {
    const jobState = parseJobStateName(state);
    if (jobState) {
      const asked = askedJobState(params, jobState);
      return () => jobFor({ idempotencyKey: setupKey, body: setupRequest, state: asked });
    }
    switch (state) {
      case stateNames.keyUnused:
        stringParam(params, 'idempotencyKey', { required: false, max: 128 });
        return async () => ({});
      case stateNames.keyUsed: {
        const idempotencyKey = stringParam(params, 'idempotencyKey', { required: true, max: 128 })!;
        const request = params.request;
        if (!isRecord(request)) throw invalid('params.request must be the body of the first create, a JSON object');
        const asked = askedJobState(params, undefined);
        return () => jobFor({ idempotencyKey, body: request, state: asked });
      }
      case stateNames.keyConflict: {
        const idempotencyKey = stringParam(params, 'idempotencyKey', { required: true, max: 128 })!;
        return () => jobFor({ idempotencyKey, body: setupRequest });
      }
      case stateNames.noJob: {
        const jobId = stringParam(params, 'jobId', { required: false, max: 1024 });
        return async () => (jobId === undefined ? {} : { jobId });
      }
      case stateNames.otherCallersJob:
        return () => jobFor({ idempotencyKey: setupKey, body: setupRequest, authorization: otherCaller });
      default:
        throw invalid(
          `unknown provider state ${quote(state, 200)}; known: ${knownStateNames.map((name) => `'${name}'`).join(', ')} (docs/pact.md)`,
        );
    }
  }

  return async (change) => {
    if (!isRecord(change)) throw invalid('give {"state": "<provider state>", "params": {…}, "action": "setup" | "teardown"}');
    const { state, params = {}, action = 'setup' } = change;
    // Pact's verifier calls with an empty state for an interaction that has none: nothing to set up.
    if (state === '') return {};
    if (typeof state !== 'string' || state.length > maxStateNameLength) {
      throw invalid(`state must be a provider state's name, a string of 1 to ${maxStateNameLength} characters`);
    }
    if (!isRecord(params)) throw invalid('params must be a JSON object');
    if (action !== 'setup' && action !== 'teardown') throw invalid(`action must be setup or teardown, got ${quote(String(action), 40)}`);
    const plan = planFor(state, params);
    // Nothing to undo: the next setup starts from a reset mock.
    if (action === 'teardown') return {};
    // Every interaction starts from an empty mock: its state must not depend on the order Pact verifies in.
    await dependencies.reset();
    return plan();
  };
}
