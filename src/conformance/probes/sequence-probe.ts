/**
 * @module conformance/probes/sequence-probe
 * The stateful phase: runs the sequences of src/conformance/stateful/sequences.ts against the
 * server, predicts every create's answer with the reference model (stateful/model.ts), and, when
 * an answer breaks the model, shrinks the sequence to a shortest one that still fails the same
 * way (rerun under fresh seed-derived keys, within a request budget) before recording it. The
 * failing step's exchange carries the steps before it, so the failure prints the sequence as a
 * numbered list of curl commands. Requests go through context.send like every probe's: counted
 * against --max-requests and --time-budget, refused ones counted as not sent.
 */
import type { JsonSchema, OperationDescription, ParameterDescription } from '../../openapi/document.js';
import type { Exchange, Intent, SequenceLine } from '../exchange.js';
import { quoted, unusableBecause } from '../exchange.js';
import { fullValidValue } from '../generators/mutations.js';
import { retryAfterMs } from '../http/transport.js';
import { changedAt, pointersOf } from '../stateful/body-changes.js';
import {
  type Caller,
  canonicalJson,
  IdempotencyModel,
  notAJob,
  type SequenceRule,
  type Step,
  type StepExpectation,
  stepProblem,
} from '../stateful/model.js';
import { type Sequence, type SequenceFamily, sequencesFor } from '../stateful/sequences.js';
import { shrinkSequence } from '../stateful/shrink.js';
import { contractOperationIds } from './contract-operations.js';
import { requestExamples } from './data-probes.js';
import { invalidJobId } from './job-probes.js';
import { deriveSeed, fitToLength, idempotencyKeyFor, type ProbeContext } from './probe-context.js';
import { buildRequest, jsonBodySchema, parametersIn } from './request-builder.js';

/** At most this many requests go to shrinking, per family of sequences. */
export const shrinkRequestLimit = 40;

const finalStatuses = new Set(['COMPLETE', 'FAILED']);

/** What the phases of one run share: once a job never got final, no later sequence waits for one again. */
const shared = new WeakMap<ProbeContext, { finalUnreachable?: string }>();

interface Setting {
  readonly context: ProbeContext;
  readonly create: OperationDescription;
  readonly read: OperationDescription;
  readonly keyHeader: ParameterDescription;
  /** The base body (key undefined) and the body changed at each pointer that has a valid change. */
  readonly bodies: ReadonlyMap<string | undefined, unknown>;
  /** The base body without a required property: invalid, so refused with a 400 (A-2). */
  readonly invalid?: { readonly body: unknown; readonly missing: string };
}

interface StepRecord {
  readonly index: number;
  readonly exchanges: readonly Exchange[];
  readonly line?: SequenceLine;
}

interface SequenceRun {
  readonly records: readonly StepRecord[];
  /** The first step whose answer broke the model; `signature` (rule and title) is what shrinking keeps failing. */
  readonly failure?: { readonly index: number; readonly signature?: string };
  /** Why the run ended before its last step with no failure of the model. */
  readonly stopped?: string;
  /** A request of the run was not sent (budget, time, interrupt): nothing it says about the server. */
  readonly refused?: boolean;
  /**
   * A create answered a jobId not valid against the Job schema: no sequence can build on the
   * server's jobs, and each further create may bring back another answer of megabytes.
   */
  readonly unusableJobIds?: string;
}

/** The phase for one family of sequences (each family is a probe: --checks sends only what is needed). */
export function sequenceProbe(family: SequenceFamily): (context: ProbeContext) => Promise<void> {
  return async (context) => {
    const setting = settingFor(context, family);
    if (!setting) return;
    const pointers = [...setting.bodies.keys()].filter((pointer): pointer is string => pointer !== undefined);
    if (family === 'key-scope' && !context.hasSecondCaller) {
      context.note('no --second-caller-header: key_scoped_to_caller does not run');
      return;
    }
    const sequences = sequencesFor({
      family,
      seed: deriveSeed(context.seed, `sequences:${family}`),
      pointers,
      ...(pointers[0] ? { otherBodyPointer: pointers.find((pointer) => pointer.split('/').length === 2) ?? pointers[0] } : {}),
      concurrency: context.concurrency,
    });
    const budget: { left: number; unusableJobIds?: string } = { left: shrinkRequestLimit };
    for (const [index, sequence] of sequences.entries()) {
      if (budget.unusableJobIds) {
        // The rest of the family is not sent: the checks that needed it did not run in full.
        context.dependentsNotSent(sequences.slice(index).reduce((total, rest) => total + plannedRequests(rest.steps), 0));
        context.note(`the ${family} sequences stopped: ${budget.unusableJobIds}`);
        break;
      }
      await runAndShrink(setting, sequence, budget);
    }
  };
}

function settingFor(context: ProbeContext, family: SequenceFamily): Setting | undefined {
  const create = context.contract.operations.find((operation) => operation.operationId === contractOperationIds.create);
  const read = context.contract.operations.find((operation) => operation.operationId === contractOperationIds.read);
  const schema = create ? jsonBodySchema(create) : undefined;
  if (!create || !read || !schema) {
    context.note(
      `the spec has no ${contractOperationIds.create} with a JSON body and ${contractOperationIds.read}; the ${family} sequences do not run`,
    );
    return undefined;
  }
  // The key header is the one a fresh value is made for: a required plain string (request-builder.ts).
  const keyHeader = parametersIn(create, 'header').find(
    (parameter) =>
      parameter.required &&
      parameter.schema.type === 'string' &&
      !parameter.schema.pattern &&
      !parameter.schema.enum &&
      !parameter.schema.format,
  );
  if (!keyHeader) {
    context.note(`${contractOperationIds.create} declares no Idempotency-Key header; the ${family} sequences do not run`);
    return undefined;
  }
  const base = requestExamples(create)[0] ?? fullValidValue(schema);
  const isValid = (candidate: unknown) => context.validator.validateSchema(schema, candidate).length === 0;
  const bodies = new Map<string | undefined, unknown>([[undefined, base]]);
  const unchangeable: string[] = [];
  for (const pointer of pointersOf(base)) {
    const changed = changedAt({ body: base, pointer, schema, isValid });
    if (changed === undefined) unchangeable.push(pointer);
    else bodies.set(pointer, changed);
  }
  if (family === 'conflict-at-depth' && unchangeable.length > 0)
    context.note(`no valid change found at ${unchangeable.join(', ')}: no conflict sent there`);
  const invalid = invalidBody(base, schema, isValid);
  if (family === 'refused-then-valid' && !invalid)
    context.note('the create body has no required property to leave out: refused_request_frees_key does not run');
  return { context, create, read, keyHeader, bodies, ...(invalid ? { invalid } : {}) };
}

/** The base body without its first required top-level property, when that makes it invalid. */
function invalidBody(base: unknown, schema: JsonSchema, isValid: (candidate: unknown) => boolean) {
  if (!base || typeof base !== 'object' || Array.isArray(base)) return undefined;
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  for (const name of required) {
    const { [name]: _left, ...body } = base as Record<string, unknown>;
    if (!isValid(body)) return { body, missing: name };
  }
  return undefined;
}

async function runAndShrink(setting: Setting, sequence: Sequence, budget: { left: number; unusableJobIds?: string }): Promise<void> {
  const { context } = setting;
  let attempt = 0;
  const original = await runSequence(setting, sequence, sequence.steps, attempt);
  if (original.unusableJobIds) budget.unusableJobIds = original.unusableJobIds;
  const failure = original.failure;
  if (!failure) {
    for (const record of original.records) for (const exchange of record.exchanges) context.record(exchange);
    return;
  }
  // The steps before the failing one matched the model: the generic checks judge them.
  for (const record of original.records.filter((candidate) => candidate.index < failure.index))
    for (const exchange of record.exchanges) context.record(exchange);
  const signature = failure.signature;
  let spent = 0;
  const shrunk =
    signature === undefined
      ? { steps: sequence.steps.slice(0, failure.index + 1), result: original, reruns: 0, stoppedEarly: undefined }
      : await shrinkSequence({
          steps: sequence.steps,
          result: original,
          failingIndex: (run) => (run.failure && run.failure.signature === signature ? run.failure.index : undefined),
          rerun: async (steps) => {
            const cost = plannedRequests(steps);
            if (budget.left < cost) return { stop: `the shrinking budget of ${shrinkRequestLimit} requests ran out` };
            if (context.remainingRequests() < cost) return { stop: '--max-requests is nearly used up' };
            const before = context.remainingRequests();
            attempt += 1;
            const run = await runSequence(setting, sequence, steps, attempt);
            const used = before - context.remainingRequests();
            spent += used;
            budget.left -= used;
            if (run.refused) return { stop: 'a rerun was not sent (--max-requests or --time-budget)' };
            return { ran: run };
          },
          smaller: (step) => (step.kind === 'burst' && step.count > 2 ? { ...step, count: step.count - 1 } : undefined),
          firstTry: [sequence.core],
        });
  const run = shrunk.result;
  const failing = run.failure!;
  const earlier = run.records.filter((record) => record.index < failing.index && record.line).map((record) => record.line!);
  const before = sequence.steps.slice(0, failure.index + 1);
  const after = shrunk.steps;
  const size = (steps: readonly Step[]) =>
    `${steps.length} step${steps.length === 1 ? '' : 's'}${steps.some((step) => step.kind === 'burst') ? ` (${plannedRequests(steps)} requests)` : ''}`;
  const reruns = `${shrunk.reruns} rerun${shrunk.reruns === 1 ? '' : 's'}, ${spent} requests`;
  const shrinking =
    signature === undefined
      ? 'not shrunk: the step got no whole answer'
      : shrunk.stoppedEarly
        ? `shrinking stopped early (${shrunk.stoppedEarly}) at ${size(after)} of ${before.length}, after ${reruns}`
        : size(after) !== size(before)
          ? `shrunk from ${size(before)} to ${size(after)} in ${reruns}`
          : `no shorter sequence fails (${reruns})`;
  for (const record of run.records.filter((candidate) => candidate.index === failing.index)) {
    for (const exchange of record.exchanges) {
      const intent = exchange.intent;
      context.record(intent.kind === 'sequence-step' ? { ...exchange, intent: { ...intent, earlier, shrinking } } : exchange);
    }
  }
}

/** Requests a sequence plans (a poll counted once: its number depends on the server). */
function plannedRequests(steps: readonly Step[]): number {
  return steps.reduce((total, step) => total + (step.kind === 'burst' ? step.count : 1), 0);
}

const keyNames = ['K1', 'K2'];

function keyName(key: number): string {
  return keyNames[key] ?? `X${key}`;
}

function describeStep(step: Step, rule: SequenceRule, missing: string | undefined): string {
  const key = keyName(step.key);
  const change = step.kind !== 'await-final' && step.pointer ? ` with a change at ${step.pointer}` : '';
  if (step.kind === 'await-final') return `caller ${step.caller} polls the job of ${key} until it is final`;
  if (step.kind === 'burst') return `${step.count} identical creates under ${key} sent at once`;
  switch (rule) {
    case 'new-key':
      return `caller ${step.caller} creates a job under a new key ${key}${change}`;
    case 'replay':
      return `caller ${step.caller} sends the same request again under ${key}`;
    case 'conflict':
      return `caller ${step.caller} reuses ${key}${change}`;
    case 'key-scope':
      return `the second caller sends ${change ? `a body${change}` : 'the same body'} under the first caller's key ${key}`;
    case 'after-final':
      return `caller ${step.caller} sends ${change ? `a body${change}` : 'the same request again'} under ${key}, after its job was final`;
    case 'concurrent':
      return `caller ${step.caller} sends the same request again under ${key}, after identical ones were sent at once`;
    case 'refused':
      return `caller ${step.caller} sends a body without ${missing ?? 'a required property'} (invalid) under ${key}`;
    case 'after-refusal':
      return `caller ${step.caller} sends the valid body under ${key}, whose only use was refused`;
  }
}

/** Runs one sequence under keys of its own (`attempt` makes them fresh for each rerun), recording nothing. */
async function runSequence(setting: Setting, sequence: Sequence, steps: readonly Step[], attempt: number): Promise<SequenceRun> {
  const { context } = setting;
  const model = new IdempotencyModel();
  const records: StepRecord[] = [];
  const keyOf = (key: number) =>
    fitToLength(
      idempotencyKeyFor({
        seed: context.seed,
        runId: context.runId,
        purpose: `sequence:${sequence.label}:${attempt}:${key}`,
        body: '',
      }),
      setting.keyHeader.schema,
    );
  const notSentAfter = (index: number): SequenceRun => {
    const rest = plannedRequests(steps.slice(index + 1));
    if (rest > 0) context.dependentsNotSent(rest);
    return { records, refused: true };
  };
  for (const [index, step] of steps.entries()) {
    if (step.kind === 'await-final') {
      const jobId = model.jobOf(step.caller, step.key);
      if (jobId === undefined) continue; // its create was shrunk away: nothing to poll
      const polled = await awaitFinal(setting, { jobId, caller: step.caller, sequence: sequence.label, step: index + 1 });
      if (polled.exchanges.length > 0) records.push({ index, exchanges: polled.exchanges, ...(polled.line ? { line: polled.line } : {}) });
      if (polled.refused) return notSentAfter(index);
      if (!polled.final) return { records, stopped: polled.why ?? 'the job did not reach a final state' };
      model.markFinal(step.caller, step.key);
      continue;
    }
    const invalid = step.kind === 'create' && step.invalid === true;
    if (invalid && !setting.invalid) continue;
    const body = invalid ? setting.invalid!.body : setting.bodies.get(step.pointer);
    const canonical = canonicalJson(body);
    const burst = step.kind === 'burst';
    const { rule, prediction } = model.predict({ caller: step.caller, key: step.key, body: canonical, burst, invalid });
    const request = buildRequest({
      operation: setting.create,
      seed: context.seed,
      runId: context.runId,
      purpose: `sequence:${sequence.label}`,
      headers: { [setting.keyHeader.name]: keyOf(step.key) },
      body: { value: body },
      caller: step.caller,
    });
    const intent: Intent = {
      kind: 'sequence-step',
      rule,
      prediction,
      ...(step.pointer ? { pointer: step.pointer } : {}),
      sequence: sequence.label,
      step: index + 1,
      description: describeStep(step, rule, setting.invalid?.missing),
    };
    const count = burst ? step.count : 1;
    // A burst's requests go together: each is sent at once, none waits for another's answer.
    const answers = await Promise.all(Array.from({ length: count }, () => context.send(request, intent, { record: false })));
    const sent = answers.filter((exchange): exchange is Exchange => exchange !== undefined);
    if (sent.length < count && (!burst || sent.length < 2)) {
      if (sent.length > 0) records.push({ index, exchanges: sent });
      return notSentAfter(index);
    }
    const jobIds = burst
      ? [...new Set(sent.map((exchange) => jobIdOf(exchange, context)).filter((jobId): jobId is string => jobId !== undefined))]
      : [];
    const exchanges = burst
      ? sent.map((exchange) => ({ ...exchange, intent: { ...intent, burst: { size: sent.length, jobIds } } }) as Exchange)
      : sent;
    const first = exchanges[0]!;
    records.push({
      index,
      exchanges,
      line: {
        id: first.id,
        caller: step.caller,
        request: first.request,
        ...(burst ? { repeat: { how: 'at-once' as const, times: sent.length } } : {}),
      },
    });
    const expectation: StepExpectation = {
      rule,
      prediction,
      ...(step.pointer ? { pointer: step.pointer } : {}),
      ...(burst ? { burst: { size: sent.length, jobIds } } : {}),
    };
    for (const exchange of exchanges) {
      // Still rate limited: the answer says nothing about the rules (not_rate_limited reports it).
      if (exchange.rateLimited) return { records, stopped: 'a step was still rate limited (429)' };
      // No whole answer: the check fails it as such; a rerun would only wait again.
      if (unusableBecause(exchange)) return { records, failure: { index } };
      const answer = exchange.response!;
      const nothing = notAJob(expectation, answer);
      if (nothing) {
        context.note(`sequence '${sequence.label}': ${nothing}; its later steps were not sent`);
        return { records, stopped: nothing };
      }
      const problem = stepProblem(expectation, answer);
      // Counts in a title (a burst's size) change as it shrinks; the failure is the same.
      if (problem) return { records, failure: { index, signature: `${rule}\n${problem.title.replace(/\d+/g, 'N')}` } };
    }
    const jobId = burst ? jobIds[0] : jobIdOf(first, context);
    const answered = (first.response?.json as { jobId?: unknown } | undefined)?.jobId;
    const unusable = typeof answered === 'string' && jobId === undefined ? invalidJobId(context, answered) : undefined;
    if (unusable)
      return { records, stopped: `createEvaluation answered ${unusable}`, unusableJobIds: `createEvaluation answered ${unusable}` };
    model.observe({ caller: step.caller, key: step.key, body: canonical, prediction, burst, ...(jobId === undefined ? {} : { jobId }) });
  }
  return { records };
}

/**
 * The jobId a create answered, when it is valid against the Job schema: a jobId of megabytes
 * (a hostile server's) must never reach a poll's URL, the model or a report.
 */
function jobIdOf(exchange: Exchange, context: Pick<ProbeContext, 'contract' | 'validator'>): string | undefined {
  const response = exchange.response;
  if (!response || response.incomplete || response.status < 200 || response.status >= 300) return undefined;
  const jobId = (response.json as { jobId?: unknown } | undefined)?.jobId;
  return typeof jobId === 'string' && invalidJobId(context, jobId) === undefined ? jobId : undefined;
}

/**
 * Polls a sequence's job with backoff until it is COMPLETE or FAILED, within --job-timeout. A
 * read that is not yet the job (a 404 just after the create) is polled past: the lifecycle's
 * checks judge first reads. A job that never gets final stops every later wait of the run.
 */
async function awaitFinal(
  setting: Setting,
  options: { jobId: string; caller: Caller; sequence: string; step: number },
): Promise<{ exchanges: Exchange[]; line?: SequenceLine; final: boolean; refused?: boolean; why?: string }> {
  const { context } = setting;
  const state = shared.get(context) ?? {};
  shared.set(context, state);
  if (state.finalUnreachable) return { exchanges: [], final: false, why: state.finalUnreachable };
  const name = parametersIn(setting.read, 'path')[0]?.name ?? 'jobId';
  const request = buildRequest({
    operation: setting.read,
    seed: context.seed,
    runId: context.runId,
    purpose: 'sequence-poll',
    path: { [name]: options.jobId },
    caller: options.caller,
  });
  const exchanges: Exchange[] = [];
  const started = performance.now();
  let delay = 100;
  for (;;) {
    const exchange = await context.send(
      request,
      { kind: 'sequence-poll', sequence: options.sequence, step: options.step, jobId: options.jobId },
      { record: false },
    );
    if (!exchange) return { exchanges, final: false, refused: true };
    exchanges.push(exchange);
    const line: SequenceLine = {
      id: exchange.id,
      caller: options.caller,
      request: exchange.request,
      repeat: { how: 'until-final', times: exchanges.length },
    };
    const job =
      exchange.response?.status === 200 ? (exchange.response.json as { jobId?: unknown; status?: unknown } | undefined) : undefined;
    if (job?.jobId === options.jobId && typeof job.status === 'string' && finalStatuses.has(job.status))
      return { exchanges, line, final: true };
    const elapsed = performance.now() - started;
    if (elapsed >= context.jobTimeoutMs) {
      state.finalUnreachable = `job ${quoted(options.jobId, 40)} of the sequence '${options.sequence}' was not COMPLETE or FAILED within --job-timeout (${context.jobTimeoutMs} ms): no later sequence waits for a final job`;
      context.note(state.finalUnreachable);
      return { exchanges, line, final: false, why: state.finalUnreachable };
    }
    if (exchange.rateLimited) delay = Math.max(delay, retryAfterMs(exchange.response?.headers['retry-after']));
    await context.sleep(Math.min(delay, context.jobTimeoutMs - elapsed));
    delay = Math.min(delay * 1.5, 2000);
  }
}
