/**
 * @module conformance/probes/sequence-probe
 * The stateful phase: runs the sequences of src/conformance/stateful/sequences.ts against the
 * server, predicts every create's answer with the reference model (stateful/model.ts), and, when
 * an answer breaks the model, shrinks the sequence to a shortest one that still fails the same
 * way (rerun under fresh seed-derived keys, within a request budget) before recording it. The
 * failing step's exchange carries the steps before it, so the failure prints the sequence as a
 * numbered list of curl commands. Requests go through context.send like every probe's: counted
 * against --max-requests and --time-budget, refused ones counted as not sent; a burst's go
 * together (http/burst-gate.ts: written but for their last bytes, then released at once).
 *
 * The replay after --replay-wait waits while the rest of the run goes on: the sequence parks at
 * its wait, later phases send their requests, and `finishLateReplays` (a phase of its own, near
 * the end) resumes it, waiting only what is left. The requests still go in a fixed order.
 */
import type { JsonSchema, OperationDescription, ParameterDescription } from '../../openapi/document.js';
import type { Exchange, Intent, SequenceLine, SequenceRequest } from '../exchange.js';
import { quoted, unusableBecause } from '../exchange.js';
import { fullValidValue } from '../generators/mutations.js';
import { type BurstResult, sendTogether } from '../http/burst-gate.js';
import { retryAfterMs } from '../http/transport.js';
import { changedAt, pointersOf } from '../stateful/body-changes.js';
import { type BodyFormPair, bodyFormChange, bodyFormKey, bodyFormsOf } from '../stateful/body-forms.js';
import { keyFormName, keyFormPairs, keyInForm } from '../stateful/key-forms.js';
import {
  type Caller,
  canonicalJson,
  IdempotencyModel,
  notAJob,
  type SequenceRule,
  type Step,
  type StepExpectation,
  stepProblem,
  waited,
} from '../stateful/model.js';
import { type Sequence, type SequenceFamily, sequencesFor } from '../stateful/sequences.js';
import { shrinkSequence } from '../stateful/shrink.js';
import { contractOperationIds } from './contract-operations.js';
import { requestExamples } from './data-probes.js';
import { invalidJobId } from './job-probes.js';
import { deriveSeed, fitToLength, idempotencyKeyFor, type ProbeContext, type ProbeRequest } from './probe-context.js';
import { buildRequest, jsonBodySchema, parametersIn } from './request-builder.js';

/** At most this many requests go to shrinking, per family of sequences. */
export const shrinkRequestLimit = 40;

/**
 * The longest --replay-wait: an hour, far within the key's 24 hours (A-16), so a key that is
 * gone at the late replay was forgotten, not expired.
 */
export const maxReplayWaitMs = 3_600_000;

/** --replay-wait checked once: whole milliseconds from 0 (no late replay) to an hour. */
export function checkReplayWait(ms: number): number {
  if (!Number.isInteger(ms) || ms < 0 || ms > maxReplayWaitMs)
    throw new RangeError(`runConformance: replayWaitMs must be whole milliseconds from 0 to ${maxReplayWaitMs} (an hour), got ${ms}`);
  return ms;
}

const finalStatuses = new Set(['COMPLETE', 'FAILED']);

/**
 * What the phases of one run share: once a job never got final, no later sequence waits for one
 * again; the sequences parked at their wait for the late replay.
 */
interface Shared {
  finalUnreachable?: string;
  parked?: { resume: () => void; done: Promise<void> }[];
}
const shared = new WeakMap<ProbeContext, Shared>();

function sharedOf(context: ProbeContext): Shared {
  const state = shared.get(context) ?? {};
  shared.set(context, state);
  return state;
}

interface Setting {
  readonly context: ProbeContext;
  readonly create: OperationDescription;
  readonly read: OperationDescription;
  readonly keyHeader: ParameterDescription;
  /** The base body (key undefined) and the body changed at each pointer that has a valid change. */
  readonly bodies: ReadonlyMap<string | undefined, unknown>;
  /** Bodies that differ from the base only in form (body-forms.ts), by bodyFormKey, and their pairs. */
  readonly formBodies: ReadonlyMap<string, unknown>;
  readonly bodyForms: readonly BodyFormPair[];
  /** The base body without a required property: invalid, so refused with a 400 (A-2). */
  readonly invalid?: { readonly body: unknown; readonly missing: string };
}

/** The bursts of a family's sequences, for the note on how tightly they went out. */
interface BurstTally {
  bursts: number;
  size: number;
  heldBack: number;
  widestMs?: number;
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
      bodyForms: setting.bodyForms,
      keyForms: family === 'key-forms' ? keyFormsThatFit(setting) : [],
      lateReplay: context.replayWaitMs > 0,
    });
    const budget: Budget = { left: shrinkRequestLimit, bursts: { bursts: 0, size: 0, heldBack: 0 } };
    for (const [index, sequence] of sequences.entries()) {
      if (budget.unusableJobIds) {
        // The rest of the family is not sent: the checks that needed it did not run in full.
        context.dependentsNotSent(sequences.slice(index).reduce((total, rest) => total + plannedRequests(rest.steps), 0));
        context.note(`the ${family} sequences stopped: ${budget.unusableJobIds}`);
        break;
      }
      if (!sequence.steps.some((step) => step.kind === 'wait-after-final')) {
        await runAndShrink(setting, sequence, budget);
        continue;
      }
      // Parked at its wait, the sequence lets the later phases go; finishLateReplays resumes it.
      let resume!: () => void;
      let parkedNow!: () => void;
      const resumed = new Promise<void>((resolve) => {
        resume = resolve;
      });
      const parked = new Promise<'parked'>((resolve) => {
        parkedNow = () => resolve('parked');
      });
      const park = () => {
        parkedNow();
        return resumed;
      };
      const done = runAndShrink(setting, sequence, budget, park);
      const finished = done.then(() => 'done' as const);
      // A failure after parking is finishLateReplays' to report (it awaits `done`), not this race's.
      finished.catch(() => undefined);
      if ((await Promise.race([finished, parked])) === 'parked') {
        const state = sharedOf(context);
        state.parked = [...(state.parked ?? []), { resume, done }];
      }
    }
    if (budget.bursts.bursts > 0) context.note(burstNote(budget.bursts));
  };
}

/**
 * The phase that resumes the sequences parked at their wait for the late replay: each waits what
 * is left of --replay-wait since its job was final, then sends its replay (and shrinks, if it
 * fails). Placed after most phases, so the wait overlaps their requests.
 */
export async function finishLateReplays(context: ProbeContext): Promise<void> {
  const state = sharedOf(context);
  const parked = state.parked ?? [];
  state.parked = [];
  for (const sequence of parked) {
    sequence.resume();
    await sequence.done;
  }
}

/** How tightly a family's bursts went out, for the run's notes. */
function burstNote(tally: BurstTally): string {
  const what = `${tally.bursts} burst${tally.bursts === 1 ? '' : 's'} of ${tally.size} creates`;
  if (tally.heldBack === 0) return `${what} were handed to the Fetch function in one turn (nothing held back)`;
  const widest =
    tally.widestMs === undefined ? '' : `: the last bytes went out within ${tally.widestMs.toFixed(2)} ms of each other at most`;
  return `${what} went out together, each request written but for its last byte, then all released at once${widest}`;
}

/** The key-form pairs whose keys fit the key header's length bounds. */
function keyFormsThatFit(setting: Setting) {
  const base = keyFor(setting, 'fit', 0);
  const max = typeof setting.keyHeader.schema.maxLength === 'number' ? setting.keyHeader.schema.maxLength : Number.POSITIVE_INFINITY;
  const fits = keyFormPairs.filter((pair) => [pair.first, pair.second].every((form) => keyInForm(base, form).length <= max));
  if (fits.length < keyFormPairs.length)
    setting.context.note(`the key header allows ${max} characters: ${keyFormPairs.length - fits.length} key forms were not sent`);
  return fits;
}

/** The seed-derived Idempotency-Key of a sequence's symbolic key, fitted to the key header's bounds. */
function keyFor(setting: Setting, label: string, key: number): string {
  return fitToLength(
    idempotencyKeyFor({ seed: setting.context.seed, runId: setting.context.runId, purpose: `sequence:${label}:${key}`, body: '' }),
    setting.keyHeader.schema,
  );
}

interface Budget {
  left: number;
  unusableJobIds?: string;
  bursts: BurstTally;
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
  const forms = bodyFormsOf({ body: base, schema, isValid });
  const missingForms = [
    ...(forms.pairs.some((pair) => pair.second === 'reordered') ? [] : ['an array of two different items to reorder']),
    ...(forms.pairs.some((pair) => pair.second === 'nfd') ? [] : ['a free-text string to write in another normalisation form']),
  ];
  if (family === 'conflict-at-depth' && missingForms.length > 0)
    context.note(`the create body has no ${missingForms.join(' and no ')}: no such conflict sent`);
  return {
    context,
    create,
    read,
    keyHeader,
    bodies,
    formBodies: forms.bodies,
    bodyForms: forms.pairs,
    ...(invalid ? { invalid } : {}),
  };
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

async function runAndShrink(setting: Setting, sequence: Sequence, budget: Budget, park?: () => Promise<void>): Promise<void> {
  const { context } = setting;
  let attempt = 0;
  const original = await runSequence(setting, sequence, sequence.steps, { attempt, budget, ...(park ? { park } : {}) });
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
            const run = await runSequence(setting, sequence, steps, { attempt, budget });
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

/** Requests a sequence plans (a poll counted once: its number depends on the server; a wait sends none). */
function plannedRequests(steps: readonly Step[]): number {
  return steps.reduce((total, step) => total + (step.kind === 'burst' ? step.count : step.kind === 'wait-after-final' ? 0 : 1), 0);
}

function keyName(key: number): string {
  return key < 100 ? `K${key + 1}` : `X${key}`;
}

function describeStep(step: Step, rule: SequenceRule, details: { missing?: string; waitedMs?: number; conflict?: boolean }): string {
  const key = keyName(step.key);
  if (step.kind === 'await-final' || step.kind === 'wait-after-final')
    return `caller ${step.caller} polls the job of ${key} until it is final`;
  if (step.kind === 'burst')
    return step.different
      ? `${step.count} creates with different bodies under ${key} sent at once`
      : `${step.count} identical creates under ${key} sent at once`;
  const change = step.pointer ? ` with ${step.bodyForm ? bodyFormChange(step.bodyForm, step.pointer) : `a change at ${step.pointer}`}` : '';
  const form = step.keyForm ? ` ${keyFormName(step.keyForm)}` : '';
  switch (rule) {
    case 'new-key':
      return `caller ${step.caller} creates a job under a new key ${key}${form}${change}`;
    case 'replay':
      return `caller ${step.caller} sends the same request again under ${key}${form}`;
    case 'conflict':
      return `caller ${step.caller} reuses ${key}${form}${change}`;
    case 'after-conflict':
      return details.conflict
        ? `caller ${step.caller} reuses ${key}${change} again, after a 409`
        : `caller ${step.caller} sends the first request under ${key} again, after a 409`;
    case 'key-scope':
      return `the second caller sends ${change ? `a body${change}` : 'the same body'} under the first caller's key ${key}`;
    case 'key-form':
      return `caller ${step.caller} sends ${change ? `a body${change}` : 'the same body'} under ${key}${form}: another form of a key already used`;
    case 'after-final':
      return `caller ${step.caller} sends ${change ? `a body${change}` : 'the same request again'} under ${key}, ${details.waitedMs === undefined ? 'after its job was final' : `${waited(details.waitedMs)} after its job was final`}`;
    case 'concurrent':
      return `caller ${step.caller} sends the same request again under ${key}, after identical ones were sent at once`;
    case 'concurrent-conflict':
      return `caller ${step.caller} sends different bodies at once under ${key}`;
    case 'refused':
      return `caller ${step.caller} sends a body without ${details.missing ?? 'a required property'} (invalid) under ${key}`;
    case 'after-refusal':
      return `caller ${step.caller} sends the valid body under ${key}, whose only use was refused`;
  }
}

/** The body a create step sends: the base, the base changed at its pointer, one of form only, or the invalid body. */
function bodyOf(setting: Setting, step: Extract<Step, { kind: 'create' | 'burst' }>): unknown {
  if (step.kind === 'create' && step.invalid) return setting.invalid!.body;
  if (step.kind === 'create' && step.bodyForm && step.pointer) return setting.formBodies.get(bodyFormKey(step.bodyForm, step.pointer));
  return setting.bodies.get(step.pointer);
}

/** The bodies of a burst of different bodies: the base, then the body changed at one pointer each. */
function differentBodies(setting: Setting, count: number): unknown[] {
  return [...setting.bodies.values()].slice(0, count);
}

/**
 * Runs one sequence under keys of its own (`attempt` makes them fresh for each rerun), recording
 * nothing. `park`, for the first run of a sequence with a late replay: called at the wait, which
 * goes on once it resolves (finishLateReplays).
 */
async function runSequence(
  setting: Setting,
  sequence: Sequence,
  steps: readonly Step[],
  options: { attempt: number; budget: Budget; park?: () => Promise<void> },
): Promise<SequenceRun> {
  const { context } = setting;
  const model = new IdempotencyModel();
  const records: StepRecord[] = [];
  /** When the job of each symbolic key was seen final (performance.now()). */
  const finalSeen = new Map<string, number>();
  /** Set by a wait step: the create after it is the late replay. */
  let waitedMs: number | undefined;
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
      finalSeen.set(`${step.caller}:${step.key}`, performance.now());
      continue;
    }
    if (step.kind === 'wait-after-final') {
      const seen = finalSeen.get(`${step.caller}:${step.key}`);
      if (seen === undefined) continue; // its await was shrunk away: nothing to wait after
      await options.park?.();
      await context.sleep(Math.max(0, context.replayWaitMs - (performance.now() - seen)));
      waitedMs = context.replayWaitMs;
      const before = records.at(-1);
      if (before?.line) records[records.length - 1] = { ...before, line: { ...before.line, thenWaitMs: context.replayWaitMs } };
      continue;
    }
    const invalid = step.kind === 'create' && step.invalid === true;
    if (invalid && !setting.invalid) continue;
    const burst = step.kind === 'burst';
    const different = burst && step.different === true;
    const keyForm = step.kind === 'create' ? step.keyForm : undefined;
    const bodies = different ? differentBodies(setting, step.count) : [bodyOf(setting, step)];
    const canonical = canonicalJson(bodies[0]);
    const { rule, prediction } = model.predict({ caller: step.caller, key: step.key, keyForm, body: canonical, burst, different, invalid });
    const requestOf = (body: unknown) =>
      buildRequest({
        operation: setting.create,
        seed: context.seed,
        runId: context.runId,
        purpose: `sequence:${sequence.label}`,
        headers: { [setting.keyHeader.name]: keyInForm(keyFor(setting, `${sequence.label}:${options.attempt}`, step.key), keyForm) },
        body: { value: body },
        caller: step.caller,
      });
    // An identical burst sends one request `count` times.
    const requests = burst && !different ? Array.from({ length: step.count }, () => requestOf(bodies[0])) : bodies.map(requestOf);
    const late = step.kind === 'create' && waitedMs !== undefined && rule === 'after-final' ? waitedMs : undefined;
    const intent: Intent = {
      kind: 'sequence-step',
      rule,
      prediction,
      ...(step.pointer ? { pointer: step.pointer } : {}),
      ...(step.kind === 'create' && step.keyForm && rule === 'key-form' ? { keyForm: step.keyForm } : {}),
      ...(step.kind === 'create' && step.bodyForm ? { bodyForm: step.bodyForm } : {}),
      ...(late === undefined ? {} : { waitedMs: late }),
      sequence: sequence.label,
      step: index + 1,
      description: describeStep(step, rule, {
        ...(setting.invalid ? { missing: setting.invalid.missing } : {}),
        ...(late === undefined ? {} : { waitedMs: late }),
        conflict: prediction.answer === 'conflict',
      }),
    };
    const count = burst ? step.count : 1;
    const answers = await sendStep(context, {
      requests,
      intent,
      burst,
      ...(options.attempt === 0 ? { tally: options.budget.bursts } : {}),
    });
    const sent = answers.filter((exchange): exchange is Exchange => exchange !== undefined);
    if (sent.length < count && (!burst || sent.length < 2)) {
      if (sent.length > 0) records.push({ index, exchanges: sent });
      return notSentAfter(index);
    }
    const { exchanges, jobIds, accepted, togetherLines } = burst
      ? burstExchanges(context, { sent, intent, different, caller: step.caller })
      : { exchanges: sent, jobIds: [], accepted: sent, togetherLines: undefined };
    const first = exchanges[0]!;
    records.push({
      index,
      exchanges,
      line: {
        id: first.id,
        caller: step.caller,
        request: first.request,
        ...(burst && !different ? { repeat: { how: 'at-once' as const, times: sent.length } } : {}),
        ...(togetherLines ? { together: togetherLines } : {}),
      },
    });
    for (const exchange of exchanges) {
      const expectation: StepExpectation = exchange.intent as StepExpectation;
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
    // Of different bodies, the one taken binds the key.
    const taken = different ? accepted[0] : first;
    const jobId = burst && !different ? jobIds[0] : taken ? jobIdOf(taken, context) : undefined;
    const answered = (first.response?.json as { jobId?: unknown } | undefined)?.jobId;
    const unusable = typeof answered === 'string' && jobIdOf(first, context) === undefined ? invalidJobId(context, answered) : undefined;
    if (unusable)
      return { records, stopped: `createEvaluation answered ${unusable}`, unusableJobIds: `createEvaluation answered ${unusable}` };
    const body = different && taken ? canonicalJson(bodies[answers.indexOf(taken)]) : canonical;
    model.observe({ caller: step.caller, key: step.key, keyForm, body, prediction, burst, ...(jobId === undefined ? {} : { jobId }) });
  }
  return { records };
}

/**
 * Sends a step's requests: one, or a burst's together (written but for their last bytes, then
 * released at once), counted in `tally` for the note on how tightly they went out.
 */
async function sendStep(
  context: ProbeContext,
  options: { requests: readonly ProbeRequest[]; intent: Intent; burst: boolean; tally?: BurstTally },
): Promise<(Exchange | undefined)[]> {
  const { requests, intent } = options;
  if (!options.burst) return [await context.send(requests[0]!, intent, { record: false })];
  const together = await sendTogether(requests.length, (at) => context.send(requests[at]!, intent, { record: false }));
  if (options.tally) tallyBurst(options.tally, together, requests.length);
  return together.results;
}

/**
 * A burst's exchanges, each with what the whole burst showed in its intent: the distinct jobIds
 * and, for different bodies, how many were accepted and whether this one was the first of them
 * (with every request, so that the failure reproduces them together).
 */
function burstExchanges(
  context: ProbeContext,
  options: { sent: readonly Exchange[]; intent: Intent; different: boolean; caller: Caller },
): { exchanges: Exchange[]; jobIds: string[]; accepted: Exchange[]; togetherLines?: SequenceRequest[] } {
  const { sent, intent, different } = options;
  const jobIds = [...new Set(sent.map((exchange) => jobIdOf(exchange, context)).filter((jobId): jobId is string => jobId !== undefined))];
  const accepted = sent.filter((exchange) => jobIdOf(exchange, context) !== undefined);
  const togetherLines = different
    ? sent.map((exchange) => ({ id: exchange.id, caller: options.caller, request: exchange.request }))
    : undefined;
  const exchanges = sent.map(
    (exchange) =>
      ({
        ...exchange,
        intent: {
          ...intent,
          burst: {
            size: sent.length,
            jobIds,
            ...(different ? { different: { accepted: accepted.length, first: exchange === accepted[0] } } : {}),
          },
          ...(togetherLines ? { together: togetherLines } : {}),
        },
      }) as Exchange,
  );
  return { exchanges, jobIds, accepted, ...(togetherLines ? { togetherLines } : {}) };
}

function tallyBurst(tally: BurstTally, result: BurstResult<unknown>, size: number): void {
  tally.bursts += 1;
  tally.size = Math.max(tally.size, size);
  tally.heldBack += result.heldBack;
  if (result.spreadMs !== undefined) tally.widestMs = Math.max(tally.widestMs ?? 0, result.spreadMs);
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
  const state = sharedOf(context);
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
