/**
 * @module conformance/pact/provider-states
 * Sets up an interaction's provider states. Without --provider-states-url, the states this
 * contract can reach through its own API are set up through the API, judged like every other
 * request of the run: "a job in state X" (a job created and polled until it is X, within
 * --job-timeout), "an evaluation job was created with this Idempotency-Key" and "the
 * Idempotency-Key was used with another body" (a create under the interaction's key), and "no
 * job with this id" (nothing to do). Any other state is not set up, and its interaction is not
 * sent: the run says so and is incomplete, never passed. With --provider-states-url, every state
 * goes to the provider's own endpoint, as Pact's verifiers do: POST `{ state, params, action }`,
 * its JSON answer giving the values ProviderState generators read.
 */
import { isDeepStrictEqual } from 'node:util';
import type { OperationDescription } from '../../openapi/document.js';
import type { Exchange, Intent } from '../exchange.js';
import { describeResponse, quoted } from '../exchange.js';
import { fullValidValue } from '../generators/mutations.js';
import { retryAfterMs, type Transport } from '../http/transport.js';
import { contractOperationIds } from '../probes/contract-operations.js';
import { requestExamples } from '../probes/data-probes.js';
import { invalidJobId } from '../probes/job-probes.js';
import type { ProbeContext } from '../probes/probe-context.js';
import { buildRequest, jsonBodySchema, parametersIn } from '../probes/request-builder.js';
import type { StateValues } from './generators.js';
import type { PactInteraction, ProviderState } from './pact-file.js';
import { headerValue, type MaterialRequest } from './pact-request.js';

/** What setting up an interaction's states gave: values for its generators, or why it could not be set up. */
export type StateOutcome = { readonly values: StateValues; readonly teardown?: () => Promise<void> } | { readonly notSetUp: string };

export interface StateSetup {
  /**
   * Whether the pact's literal Idempotency-Keys give way to keys of this run (pact-phase.ts):
   * yes where the runner binds the keys itself through the API; no where the provider's state
   * endpoint binds the key the state's params name.
   */
  readonly runKeys: boolean;
  setUp(options: { interaction: PactInteraction; request: MaterialRequest; context: ProbeContext }): Promise<StateOutcome>;
}

/** The states a pact names, recognised by their words (any consumer's wording of the same state). */
type Recognised =
  | { readonly kind: 'job-in-state'; readonly status: string; readonly evaluation?: string }
  /** Nothing to set up: no such job, or an Idempotency-Key not used yet (the run's keys are its own). */
  | { readonly kind: 'nothing' }
  | { readonly kind: 'key-used'; readonly body: 'same' | 'other' }
  /** A job another caller made: set up with the second caller's credentials. */
  | { readonly kind: 'other-callers-job' };

const finalStatuses = new Set(['COMPLETE', 'FAILED']);

/** The job statuses the contract names (Job.status's enum), to read "a job in state X" against. */
function jobStatuses(context: ProbeContext): string[] {
  const job = context.contract.schemas.Job as { properties?: { status?: { enum?: unknown[] } } } | undefined;
  const listed = job?.properties?.status?.enum?.filter((value): value is string => typeof value === 'string');
  return listed && listed.length > 0 ? listed : ['QUEUED', 'RUNNING', 'COMPLETE', 'FAILED'];
}

export function recognise(state: ProviderState, statuses: readonly string[]): Recognised | undefined {
  const name = state.name;
  const param = state.params.status;
  const named = /\bjob\b.*?\b(?:in|with)\s+(?:the\s+)?(?:state|status)\s+['"]?([A-Za-z_]+)/i.exec(name)?.[1];
  const status = typeof param === 'string' ? param : named;
  // A key's states first: a replay's state names its job too ("an evaluation job was created…").
  if (/idempotency[- ]key/i.test(name)) {
    if (/\b(?:another|other|different)\b.*\bbody\b/i.test(name)) return { kind: 'key-used', body: 'other' };
    // "no evaluation job was created with this Idempotency-Key": the run's keys are fresh already.
    if (/\b(?:no|not|never|unused)\b/i.test(name)) return { kind: 'nothing' };
    if (/\b(?:created|used)\b/i.test(name)) return { kind: 'key-used', body: 'same' };
  }
  if (status !== undefined && /\bjob\b/i.test(name)) {
    // The API sets a job's status only by waiting, so an evaluation named is one the job must
    // reach on its own (the shipped lifecycle's PASS); another is the provider's to arrange.
    const evaluationParam = state.params.evaluation;
    const evaluation = typeof evaluationParam === 'string' ? evaluationParam : /\bevaluation\s+['"]?([A-Za-z_]+)/i.exec(name)?.[1];
    const known = statuses.find((candidate) => candidate.toLowerCase() === status.toLowerCase());
    return { kind: 'job-in-state', status: known ?? status, ...(evaluation === undefined ? {} : { evaluation }) };
  }
  if (/\bno job\b|\bjob\b.*\b(?:does not|doesn't|do not) exist|\bunknown job\b|\bjob\b.*\bnot found\b/i.test(name))
    return { kind: 'nothing' };
  if (/\bjob\b/i.test(name) && /\b(?:another|other|second)\s+caller\b/i.test(name)) return { kind: 'other-callers-job' };
  return undefined;
}

function operationOf(context: ProbeContext, operationId: string): OperationDescription | undefined {
  return context.contract.operations.find((candidate) => candidate.operationId === operationId);
}

/** The created job's id, if the answer gives one valid against the Job schema (never megabytes into a URL). */
function jobIdOf(context: ProbeContext, exchange: Exchange | undefined): string | undefined {
  const response = exchange?.response;
  if (!response || response.status < 200 || response.status >= 300) return undefined;
  const jobId = (response.json as { jobId?: unknown } | undefined)?.jobId;
  return typeof jobId === 'string' && !invalidJobId(context, jobId) ? jobId : undefined;
}

function statusOf(exchange: Exchange | undefined, jobId: string): string | undefined {
  const job = exchange?.response?.json as { jobId?: unknown; status?: unknown } | undefined;
  if (!exchange?.response || exchange.response.status >= 300 || job?.jobId !== jobId || typeof job.status !== 'string') return undefined;
  return job.status;
}

/** Sets up the states this contract can reach through its own API. */
export class ApiStates implements StateSetup {
  readonly runKeys = true;
  async setUp(options: { interaction: PactInteraction; request: MaterialRequest; context: ProbeContext }): Promise<StateOutcome> {
    const { interaction, context } = options;
    let values: Record<string, unknown> = {};
    for (const state of interaction.states) {
      values = { ...values, ...state.params };
      const recognised = recognise(state, jobStatuses(context));
      if (!recognised)
        return {
          // The states the API can reach are listed in docs/pact-verify.md; the message stays one line.
          notSetUp: `the provider state '${quoted(state.name)}' cannot be set up through the API; give --provider-states-url`,
        };
      const outcome = await this.setUpOne({ ...options, state, recognised });
      if ('notSetUp' in outcome) return outcome;
      values = { ...values, ...outcome.values };
    }
    return { values };
  }

  private async setUpOne(options: {
    interaction: PactInteraction;
    request: MaterialRequest;
    context: ProbeContext;
    state: ProviderState;
    recognised: Recognised;
  }): Promise<StateOutcome> {
    const { recognised } = options;
    switch (recognised.kind) {
      case 'nothing':
        return { values: {} };
      case 'key-used':
        return this.keyUsed(options, recognised.body);
      case 'job-in-state':
        return this.jobInState(options, recognised);
      case 'other-callers-job':
        return this.otherCallersJob(options);
    }
  }

  private intent(options: { interaction: PactInteraction; state: ProviderState }, step: string): Intent {
    return { kind: 'pact-state', state: options.state.name, interaction: options.interaction.description, step };
  }

  /** A create under the interaction's own Idempotency-Key, with its body or another valid one. */
  private async keyUsed(
    options: { interaction: PactInteraction; request: MaterialRequest; context: ProbeContext; state: ProviderState },
    body: 'same' | 'other',
  ): Promise<StateOutcome> {
    const { context, request } = options;
    const create = operationOf(context, contractOperationIds.create);
    if (!create)
      return { notSetUp: `the spec has no operation '${contractOperationIds.create}' to set up '${quoted(options.state.name)}' with` };
    const keyHeader = parametersIn(create, 'header').find((parameter) => /idempotency/i.test(parameter.name))?.name ?? 'Idempotency-Key';
    const key = headerValue(request, keyHeader);
    if (key === undefined)
      return { notSetUp: `the interaction sends no ${keyHeader} header to set up '${quoted(options.state.name)}' with` };
    const own = request.body?.kind === 'json' ? request.body.value : undefined;
    const value = body === 'same' ? own : otherBody(create, own);
    if (value === undefined)
      return { notSetUp: `the interaction has no JSON body to create the job of '${quoted(options.state.name)}' with` };
    const built = buildRequest({
      operation: create,
      seed: context.seed,
      runId: context.runId,
      purpose: 'pact-state',
      headers: { [keyHeader]: key },
      body: { value },
    });
    const exchange = await context.send(
      built,
      this.intent(options, `create a job under the interaction's ${keyHeader}${body === 'other' ? ', with another body' : ''}`),
    );
    if (!exchange) return { notSetUp: 'the create that sets up the state was not sent' };
    const jobId = jobIdOf(context, exchange);
    if (!jobId) return { notSetUp: `the create that sets up the state was answered ${describeResponse(exchange).slice(0, 200)}` };
    // A replay recorded once its job was final promises that state (params.status, .evaluation).
    const status = options.state.params.status;
    if (body === 'same' && typeof status === 'string') {
      const evaluation = options.state.params.evaluation;
      return this.untilInState(options, {
        jobId,
        created: exchange,
        status,
        ...(typeof evaluation === 'string' ? { evaluation } : {}),
      });
    }
    return { values: { jobId } };
  }

  /** A job the second caller creates (--second-caller-header), which the first must not see. */
  private async otherCallersJob(options: {
    interaction: PactInteraction;
    context: ProbeContext;
    state: ProviderState;
  }): Promise<StateOutcome> {
    const { context } = options;
    if (!context.hasSecondCaller)
      return { notSetUp: `the provider state '${quoted(options.state.name)}' needs a second caller: give --second-caller-header` };
    const create = operationOf(context, contractOperationIds.create);
    if (!create)
      return { notSetUp: `the spec has no operation '${contractOperationIds.create}' to set up '${quoted(options.state.name)}' with` };
    const built = buildRequest({
      operation: create,
      seed: context.seed,
      runId: context.runId,
      purpose: `pact-state:${options.interaction.index}`,
      body: { value: creationBody(create) },
    });
    const created = await context.send({ ...built, caller: 2 }, this.intent(options, 'create a job as the second caller'));
    if (!created) return { notSetUp: 'the create that sets up the state was not sent' };
    const jobId = jobIdOf(context, created);
    if (!jobId) return { notSetUp: `the create that sets up the state was answered ${describeResponse(created).slice(0, 200)}` };
    return { values: { jobId } };
  }

  /** A new job, polled until it is in `status` (with `evaluation`, when named), or why it did not get there. */
  private async jobInState(
    options: { interaction: PactInteraction; context: ProbeContext; state: ProviderState },
    target: { status: string; evaluation?: string },
  ): Promise<StateOutcome> {
    const { status, evaluation } = target;
    const { context } = options;
    const create = operationOf(context, contractOperationIds.create);
    const read = operationOf(context, contractOperationIds.read);
    if (!create || !read)
      return {
        notSetUp: `the spec has no '${contractOperationIds.create}' and '${contractOperationIds.read}' to set up '${quoted(options.state.name)}' with`,
      };
    const created = await context.send(
      buildRequest({
        operation: create,
        seed: context.seed,
        runId: context.runId,
        purpose: `pact-state:${options.interaction.index}`,
        body: { value: creationBody(create) },
      }),
      this.intent(options, 'create a job'),
    );
    if (!created) return { notSetUp: 'the create that sets up the state was not sent' };
    const jobId = jobIdOf(context, created);
    if (!jobId) return { notSetUp: `the create that sets up the state was answered ${describeResponse(created).slice(0, 200)}` };
    return this.untilInState(options, { jobId, created, status, ...(evaluation === undefined ? {} : { evaluation }) });
  }

  /** Reads job `jobId` until it is in `status` (with `evaluation`, when named), or says why it did not get there. */
  private async untilInState(
    options: { interaction: PactInteraction; context: ProbeContext; state: ProviderState },
    target: { jobId: string; created: Exchange; status: string; evaluation?: string },
  ): Promise<StateOutcome> {
    const { context } = options;
    const { jobId, created, status, evaluation } = target;
    const read = operationOf(context, contractOperationIds.read);
    if (!read) return { notSetUp: `the spec has no '${contractOperationIds.read}' to set up '${quoted(options.state.name)}' with` };
    const seen: string[] = [];
    let current = statusOf(created, jobId);
    let last: Exchange = created;
    if (current !== undefined) seen.push(current);
    const started = performance.now();
    let delay = 0;
    const name = parametersIn(read, 'path')[0]?.name ?? 'jobId';
    while (current !== status) {
      if (current !== undefined && finalStatuses.has(current))
        return { notSetUp: `state not reachable: the job went ${seen.join(' → ')} and never was ${status}` };
      const elapsed = performance.now() - started;
      if (elapsed >= context.jobTimeoutMs)
        return {
          notSetUp: `state not reachable within --job-timeout (${context.jobTimeoutMs} ms): the job went ${seen.join(' → ') || 'unread'}`,
        };
      await context.sleep(Math.min(delay, context.jobTimeoutMs - elapsed));
      delay = Math.min(Math.max(100, delay * 1.5), 1000);
      const polled = await context.send(
        buildRequest({ operation: read, seed: context.seed, runId: context.runId, purpose: 'read', path: { [name]: jobId } }),
        this.intent(options, `read job ${quoted(jobId)} until it is ${status}`),
      );
      if (!polled) return { notSetUp: 'a read that sets up the state was not sent' };
      if (polled.rateLimited) delay = Math.max(delay, retryAfterMs(polled.response?.headers['retry-after']));
      current = statusOf(polled, jobId);
      last = polled;
      if (current === undefined)
        return { notSetUp: `a read of the job set up for the state was answered ${describeResponse(polled).slice(0, 200)}` };
      if (seen.at(-1) !== current) seen.push(current);
    }
    if (evaluation !== undefined) {
      const reached = (last.response?.json as { evaluation?: unknown } | undefined)?.evaluation;
      if (reached !== evaluation)
        return {
          notSetUp: `state not reachable: the job ended ${status} with evaluation ${quoted(String(reached ?? 'none'))}, not ${evaluation}`,
        };
      return { values: { jobId, status, evaluation } };
    }
    return { values: { jobId, status } };
  }
}

/** The body stateful probes create jobs with: the first documented example, else a built one. */
function creationBody(create: OperationDescription): unknown {
  const schema = jsonBodySchema(create);
  return requestExamples(create)[0] ?? (schema ? fullValidValue(schema) : {});
}

/** A valid create body other than `own`: a documented example or a built value that differs. */
function otherBody(create: OperationDescription, own: unknown): unknown {
  const schema = jsonBodySchema(create);
  const candidates = [...requestExamples(create), ...(schema ? [fullValidValue(schema)] : [])];
  const other = candidates.find((candidate) => !isDeepStrictEqual(candidate, own));
  if (other !== undefined) return other;
  // Every candidate equals the interaction's body: change one string value, keeping its shape.
  if (own && typeof own === 'object' && !Array.isArray(own)) {
    const entry = Object.entries(own).find(([, value]) => typeof value === 'string' && value.length > 1);
    if (entry) return { ...own, [entry[0]]: `${(entry[1] as string).slice(0, -1)}${(entry[1] as string).endsWith('x') ? 'y' : 'x'}` };
  }
  return undefined;
}

/** The most a state endpoint's answer may hold: values for generators, not documents. */
const maxStateAnswerBytes = 64 * 1024;

/** Sets up every state through the provider's own state endpoint (--provider-states-url). */
export class UrlStates implements StateSetup {
  readonly runKeys = false;
  constructor(
    private readonly options: {
      transport: Transport;
      note: (message: string) => void;
      /** The end of the run's --time-budget (ms since the epoch): no state call runs past it. */
      deadline: number;
      /** Sent with every call (the URL's user name and password, as Basic). */
      headers?: Readonly<Record<string, string>>;
    },
  ) {}

  static readonly maxAnswerBytes = maxStateAnswerBytes;

  async setUp(options: { interaction: PactInteraction }): Promise<StateOutcome> {
    let values: Record<string, unknown> = {};
    const done: ProviderState[] = [];
    for (const state of options.interaction.states) {
      values = { ...values, ...state.params };
      const answer = await this.post(state, 'setup');
      if (typeof answer === 'string') {
        // The states set up before this one are the provider's to undo, as after the interaction.
        await this.tearDown(done);
        return { notSetUp: `the provider state '${quoted(state.name)}' was not set up: ${answer}` };
      }
      done.push(state);
      values = { ...values, ...answer };
    }
    if (done.length === 0) return { values };
    return { values, teardown: () => this.tearDown(done) };
  }

  private async tearDown(states: readonly ProviderState[]): Promise<void> {
    for (const state of [...states].reverse()) {
      const answer = await this.post(state, 'teardown');
      if (typeof answer === 'string') this.options.note(`the provider state '${quoted(state.name)}' was not torn down: ${answer}`);
    }
  }

  /** One call of the state endpoint: its values, or what went wrong. */
  private async post(state: ProviderState, action: 'setup' | 'teardown'): Promise<Record<string, unknown> | string> {
    if (Date.now() >= this.options.deadline) return 'the --time-budget ran out';
    const result = await this.options.transport.send(
      {
        method: 'POST',
        path: '',
        headers: { ...this.options.headers, 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ state: state.name, params: state.params, action }),
      },
      { runDeadline: this.options.deadline },
    );
    const response = result.response;
    if (!response) return `no answer from --provider-states-url (${result.transportError ?? 'no answer'})`;
    if (response.incomplete) return `its answer was not whole (${response.incomplete.message})`;
    if (response.status < 200 || response.status >= 300) return `--provider-states-url answered ${response.status}`;
    return stateValues(response.json);
  }
}

/** The values a state endpoint's answer gives: a JSON object's text, number and boolean members. */
export function stateValues(json: unknown): Record<string, unknown> {
  if (!json || typeof json !== 'object' || Array.isArray(json)) return {};
  const values: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(json).slice(0, 64)) {
    if ((typeof value === 'string' && value.length <= 4096) || typeof value === 'number' || typeof value === 'boolean') values[key] = value;
  }
  return values;
}
