/**
 * @module conformance/stateful/model
 * The reference model the stateful sequences are judged by: the idempotency rules of
 * docs/assumptions.md as a small state machine. Keys are scoped per caller (A-10, A-16); the
 * request digest covers the whole parsed body, array order and the exact text of strings included
 * (A-5); a key is the header's value as sent, so keys that differ only by letter case,
 * whitespace or Unicode normalisation form are different keys (A-16); a key stays bound to its
 * first request and its job for the key's whole life, whether the job is final or not and after
 * a 409 (A-16); a refused request binds nothing; N creates sent at once under one key are one
 * job, and of different bodies only one is taken (A-16). Given the steps answered so far, it
 * predicts the answer to the next create and names the rule that answer is held to, so a
 * mismatch is reported by the check that names the rule, whichever sequence it happened in.
 */
import { type BodyForm, bodyFormChange } from './body-forms.js';
import { type KeyForm, keyFormDifference } from './key-forms.js';

export type Caller = 1 | 2;

/**
 * One step of a sequence. Keys are symbolic (an index), materialised per run as seed-derived
 * Idempotency-Keys, so a sequence rerun while shrinking uses keys the server has never seen.
 * `pointer` names the one place where the body differs from the sequence's base body; with
 * `bodyForm`, the body differs there only in form (body-forms.ts). `keyForm` sends the key in
 * one of the forms of key-forms.ts: each form is a key of its own.
 */
export type Step =
  /** `invalid`: the body breaks the spec (a required property left out), so the create is refused. */
  | {
      readonly kind: 'create';
      readonly caller: Caller;
      readonly key: number;
      readonly pointer?: string;
      readonly invalid?: boolean;
      readonly keyForm?: KeyForm;
      readonly bodyForm?: BodyForm;
    }
  /**
   * `count` creates sent at once, identical, or with `different` bodies: the base body and the
   * body changed at one pointer each (burst-gate.ts releases them together).
   */
  | {
      readonly kind: 'burst';
      readonly caller: Caller;
      readonly key: number;
      readonly count: number;
      readonly pointer?: string;
      readonly different?: boolean;
    }
  /** Polls the job bound to the caller's key until it is COMPLETE or FAILED. */
  | { readonly kind: 'await-final'; readonly caller: Caller; readonly key: number }
  /** Waits until --replay-wait has passed since the job of the caller's key was seen final. */
  | { readonly kind: 'wait-after-final'; readonly caller: Caller; readonly key: number };

/** The rule a create is held to, decided by what the model knows when it is sent. */
export type SequenceRule =
  | 'new-key'
  | 'replay'
  | 'conflict'
  | 'after-conflict'
  | 'key-scope'
  | 'key-form'
  | 'after-final'
  | 'concurrent'
  | 'concurrent-conflict'
  | 'refused'
  | 'after-refusal';

/**
 * The check that reports a broken rule (checks/registry.ts). An invalid create ('refused') only
 * sets up the step after it: no check judges its 4xx, and a 5xx is not_a_server_error's.
 */
export const checkOfRule: Readonly<Record<Exclude<SequenceRule, 'refused'>, string>> = {
  'new-key': 'distinct_keys_distinct_jobs',
  replay: 'idempotent_replay',
  conflict: 'idempotency_conflict',
  'after-conflict': 'idempotency_conflict',
  'key-scope': 'key_scoped_to_caller',
  'key-form': 'keys_compared_exactly',
  'after-final': 'replay_after_job_final',
  concurrent: 'concurrent_duplicates_one_job',
  'concurrent-conflict': 'concurrent_bodies_one_accepted',
  'after-refusal': 'refused_request_frees_key',
};

/** What the model predicts for a create. */
export type Prediction =
  /**
   * 2xx with a jobId the sequence has not seen; `otherCallersJob`: the job the other caller has
   * under the same key; `otherFormJob`: the job of the same key in another form.
   */
  | { readonly answer: 'new-job'; readonly notJobs: readonly string[]; readonly otherCallersJob?: string; readonly otherFormJob?: string }
  /** 2xx with the job the key is bound to. */
  | { readonly answer: 'same-job'; readonly jobId: string }
  /** 409: the key is bound to `jobId` with another body. */
  | { readonly answer: 'conflict'; readonly jobId: string }
  /** A 4xx: the body is invalid; the key stays unbound (A-16). */
  | { readonly answer: 'refused' };

/** What a burst's answers showed: the distinct jobIds, in the order the requests were sent. */
export interface BurstOutcome {
  readonly size: number;
  readonly jobIds: readonly string[];
  /**
   * For a burst of different bodies: how many answers were 2xx with a jobId, and whether this
   * answer is the first of them in the order sent (the one the server may have taken).
   */
  readonly different?: { readonly accepted: number; readonly first: boolean };
}

/** The part of a step's intent the judgement needs (exchange.ts carries it as 'sequence-step'). */
export interface StepExpectation {
  readonly rule: SequenceRule;
  readonly prediction: Prediction;
  readonly pointer?: string;
  readonly burst?: BurstOutcome;
  /** The form the key was sent in, when it differs from a form used before (rule 'key-form'). */
  readonly keyForm?: KeyForm;
  /** The change at `pointer` is one of form only (body-forms.ts). */
  readonly bodyForm?: BodyForm;
  /** A replay sent this long (--replay-wait, ms) after its job was seen final. */
  readonly waitedMs?: number;
}

/** A mismatch between the model and an answer: the failure's title and what was due. */
export interface StepProblem {
  readonly title: string;
  readonly expected: string;
}

/**
 * A JSON value in one canonical text: object keys sorted, no whitespace. Two bodies are the same
 * request for the digest exactly when these texts are equal (A-5 hashes RFC 8785 JCS, which
 * orders keys the same way for the ASCII keys of the contract).
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

interface Binding {
  readonly body: string;
  readonly jobId: string;
  /** Made by a burst: a replay of it still tests the race (which job won the key). */
  readonly byBurst: boolean;
  final: boolean;
  /** A request with another body was answered 409 under the key: a replay now asks whether it rebound the key. */
  conflicted: boolean;
}

export class IdempotencyModel {
  private readonly bindings = new Map<string, Binding>();
  private readonly jobs: string[] = [];
  /** Keys whose only use so far was refused: still free (A-16). */
  private readonly refused = new Set<string>();

  /**
   * The prediction for a create (or a burst) of `caller` under `key` (in `keyForm`) with a body of
   * canonical text `body`; `different`: a burst of different bodies, `body` the first of them.
   */
  predict(options: {
    caller: Caller;
    key: number;
    keyForm?: KeyForm;
    body: string;
    burst?: boolean;
    different?: boolean;
    invalid?: boolean;
  }): {
    rule: SequenceRule;
    prediction: Prediction;
  } {
    if (options.invalid) return { rule: 'refused', prediction: { answer: 'refused' } };
    const own = this.bindings.get(bindingKey(options.caller, options.key, options.keyForm));
    const other = this.bindings.get(bindingKey(options.caller === 1 ? 2 : 1, options.key, options.keyForm));
    if (!own) {
      // The same key in another form is another key: the server must not find the first form's binding.
      const otherForm = [...this.bindings.entries()].find(
        ([name]) =>
          name.startsWith(`${options.caller}:${options.key}:`) && name !== bindingKey(options.caller, options.key, options.keyForm),
      )?.[1];
      const prediction: Prediction = {
        answer: 'new-job',
        notJobs: [...this.jobs],
        ...(other ? { otherCallersJob: other.jobId } : {}),
        ...(otherForm ? { otherFormJob: otherForm.jobId } : {}),
      };
      // A burst is judged as a race first; a second caller's first use of a key as a scoping question.
      const rule: SequenceRule = options.burst
        ? options.different
          ? 'concurrent-conflict'
          : 'concurrent'
        : otherForm
          ? 'key-form'
          : other
            ? 'key-scope'
            : this.refused.has(bindingKey(options.caller, options.key, options.keyForm))
              ? 'after-refusal'
              : 'new-key';
      return { rule, prediction };
    }
    // After a 409, whatever comes under the key asks whether the 409 rebound it.
    if (own.body !== options.body)
      return {
        rule: own.final ? 'after-final' : own.conflicted ? 'after-conflict' : 'conflict',
        prediction: { answer: 'conflict', jobId: own.jobId },
      };
    const rule: SequenceRule = own.final
      ? 'after-final'
      : own.conflicted
        ? 'after-conflict'
        : options.burst || own.byBurst
          ? 'concurrent'
          : 'replay';
    return { rule, prediction: { answer: 'same-job', jobId: own.jobId } };
  }

  /** Takes in an answer that matched its prediction: a new job binds the key; a 409 leaves it bound, now conflicted. */
  observe(options: {
    caller: Caller;
    key: number;
    keyForm?: KeyForm;
    body: string;
    prediction: Prediction;
    jobId?: string;
    burst?: boolean;
  }): void {
    const name = bindingKey(options.caller, options.key, options.keyForm);
    if (options.prediction.answer === 'refused') this.refused.add(name);
    if (options.prediction.answer === 'conflict') {
      const binding = this.bindings.get(name);
      if (binding) binding.conflicted = true;
    }
    if (options.prediction.answer !== 'new-job' || options.jobId === undefined) return;
    this.bindings.set(name, { body: options.body, jobId: options.jobId, byBurst: options.burst === true, final: false, conflicted: false });
    this.jobs.push(options.jobId);
  }

  /** The job bound to the caller's key (in `keyForm`), if any. */
  jobOf(caller: Caller, key: number, keyForm?: KeyForm): string | undefined {
    return this.bindings.get(bindingKey(caller, key, keyForm))?.jobId;
  }

  /** The job bound to the caller's key (every form of it) was seen COMPLETE or FAILED. */
  markFinal(caller: Caller, key: number): void {
    for (const [name, binding] of this.bindings) if (name.startsWith(`${caller}:${key}:`)) binding.final = true;
  }
}

function bindingKey(caller: Caller, key: number, keyForm: KeyForm | undefined): string {
  return `${caller}:${key}:${keyForm ?? ''}`;
}

function jobIdIn(json: unknown): unknown {
  return json && typeof json === 'object' && !Array.isArray(json) ? (json as { jobId?: unknown }).jobId : undefined;
}

const shortId = (jobId: string) => (jobId.length > 80 ? `${jobId.slice(0, 80)}… (${jobId.length} characters)` : jobId);

/** What was due, in words, for a step's failure. */
export function expectedAnswer(expectation: StepExpectation): string {
  const { prediction, rule } = expectation;
  if (expectation.burst?.different)
    return `exactly one of the ${expectation.burst.size} answers 2xx with a new job and every other 409: the key is bound to the one body the server takes first, and the others conflict with it (A-16: one atomic insert-if-absent per key)`;
  if (expectation.burst)
    return `every one of the ${expectation.burst.size} answers 2xx with one and the same jobId (A-16: concurrent duplicates are one job)`;
  switch (prediction.answer) {
    case 'new-job':
      return rule === 'key-scope'
        ? `2xx with a new job of the second caller's own, not job ${shortId(prediction.otherCallersJob ?? '')} and not 409: keys are scoped per caller (A-10, A-16)`
        : rule === 'key-form'
          ? `2xx with a new job, not job ${shortId(prediction.otherFormJob ?? '')} and not 409: a key is the header's value as sent, so one that differs only by ${expectation.keyForm ? keyFormDifference(expectation.keyForm) : 'its form'} is another key (A-16)`
          : rule === 'after-refusal'
            ? '2xx with a new job: a request refused with a 4xx does not consume its key, so a corrected request may use it (A-16)'
            : '2xx with a jobId no earlier step of the sequence was given (a new key is a new job, A-16)';
    case 'refused':
      return 'a 4xx: the body breaks the spec';
    case 'same-job':
      return rule === 'after-final'
        ? `2xx with jobId ${shortId(prediction.jobId)}: the key is still bound to its job once the job is final${expectation.waitedMs === undefined ? '' : `, ${waited(expectation.waitedMs)} later too, well within the key's 24 hours`} (A-16)`
        : rule === 'after-conflict'
          ? `2xx with jobId ${shortId(prediction.jobId)}: a 409 leaves the key bound to its first request (A-16)`
          : `2xx with jobId ${shortId(prediction.jobId)}, the key's job (A-16)`;
    case 'conflict':
      if (rule === 'after-conflict')
        return `409: the key is still bound to its first request after a 409, and this body differs from it${expectation.pointer ? ` at ${expectation.pointer}` : ''} (A-16)`;
      return expectation.bodyForm && expectation.pointer
        ? `409: the body differs from the key's first request (${bodyFormChange(expectation.bodyForm, expectation.pointer)}), and the digest covers the whole parsed body: RFC 8785 keeps the order of array items and does not normalise strings (A-5)`
        : `409: the body differs from the key's first request${expectation.pointer ? ` at ${expectation.pointer}` : ''}, and the digest covers the whole parsed body (A-5)`;
  }
}

/** A wait in words: 2000 → "2 s", 1500 → "1.5 s", 500 → "500 ms". */
export function waited(ms: number): string {
  return ms >= 1000 ? `${Number((ms / 1000).toFixed(1))} s` : `${ms} ms`;
}

/**
 * Judges one whole answer against the model's prediction: undefined when it matches, else the
 * failure's title (grouped in reports, so it names the rule and the pointer, never a jobId).
 */
export function stepProblem(expectation: StepExpectation, answer: { status: number; json: unknown }): StepProblem | undefined {
  const { prediction, rule, pointer } = expectation;
  const status = answer.status;
  const ok = status >= 200 && status < 300;
  const found = jobIdIn(answer.json);
  const jobId = typeof found === 'string' ? found : undefined;
  const expected = expectedAnswer(expectation);
  const problem = (title: string): StepProblem => ({ title, expected });
  if (expectation.burst?.different) {
    const { size } = expectation.burst;
    const { accepted, first } = expectation.burst.different;
    const what = `${size} different bodies sent at once under one new key`;
    if (status === 409) return accepted > 0 ? undefined : problem(`none of ${what} was accepted: every one answered 409 or failed`);
    if (!ok) return problem(`one of ${what} answered ${status}`);
    if (jobId === undefined) return problem(`one of ${what} answered no jobId`);
    if (!first) return problem(`${accepted} of ${what} were accepted`);
    return prediction.answer === 'new-job' && prediction.notJobs.includes(jobId)
      ? problem(`one of ${what} answered an earlier job`)
      : undefined;
  }
  if (expectation.burst) {
    const { size, jobIds } = expectation.burst;
    if (!ok) return problem(`one of ${size} identical creates sent at once answered ${status}`);
    if (jobId === undefined) return problem(`one of ${size} identical creates sent at once answered no jobId`);
    if (jobIds.length > 1 && jobId !== jobIds[0]) return problem(`${size} identical creates sent at once gave ${jobIds.length} jobs`);
    if (prediction.answer === 'same-job' && jobId !== prediction.jobId)
      return problem('creates sent at once under a bound key gave another job');
    if (prediction.answer === 'new-job' && prediction.notJobs.includes(jobId))
      return problem('creates sent at once under a new key answered an earlier job');
    return undefined;
  }
  switch (prediction.answer) {
    case 'new-job': {
      if (rule === 'key-scope') {
        const what = "the second caller's create under the first caller's Idempotency-Key";
        if (status === 409) return problem(`${what} answered 409, revealing the first caller's request`);
        if (!ok) return problem(`${what} answered ${status}`);
        if (jobId !== undefined && jobId === prediction.otherCallersJob) return problem(`${what} answered the first caller's job`);
        if (jobId === undefined) return problem(`${what} answered no jobId`);
        return prediction.notJobs.includes(jobId) ? problem(`${what} answered an earlier job`) : undefined;
      }
      if (rule === 'key-form') {
        const what = `an Idempotency-Key differing only by ${expectation.keyForm ? keyFormDifference(expectation.keyForm) : 'its form'} from one already used`;
        if (status === 409) return problem(`${what} answered 409: the two were taken for one key`);
        if (!ok) return problem(`${what} answered ${status}`);
        if (jobId === undefined) return problem(`${what} answered no jobId`);
        if (jobId === prediction.otherFormJob) return problem(`${what} answered the other key's job`);
        return prediction.notJobs.includes(jobId) ? problem(`${what} answered an earlier job`) : undefined;
      }
      if (rule === 'after-refusal') {
        const what = 'a valid create under a key whose only use was refused';
        if (status === 409) return problem(`${what} answered 409: the refused request kept the key`);
        if (!ok) return problem(`${what} answered ${status}`);
        if (jobId === undefined) return problem(`${what} answered no jobId`);
        return prediction.notJobs.includes(jobId) ? problem(`${what} answered an earlier job`) : undefined;
      }
      // No job to judge (a valid create refused, a 5xx): not this rule's question; see notAJob.
      if (!ok || jobId === undefined) return undefined;
      return prediction.notJobs.includes(jobId) ? problem('a new Idempotency-Key answered an earlier job of the sequence') : undefined;
    }
    case 'same-job': {
      const what =
        rule === 'after-final'
          ? expectation.waitedMs === undefined
            ? 'replay after the job was final'
            : `replay ${waited(expectation.waitedMs)} after the job was final`
          : rule === 'concurrent'
            ? 'replay after creates sent at once'
            : rule === 'after-conflict'
              ? 'the first request again after a 409'
              : 'replay';
      if (ok && jobId === prediction.jobId) return undefined;
      if (rule === 'after-conflict' && status === 409) return problem(`${what} answered 409: the conflicting request took the key`);
      if (ok && jobId !== undefined) return problem(`${what} answered another job`);
      return problem(ok ? `${what} answered no jobId` : `${what} answered ${status}`);
    }
    case 'conflict': {
      if (status === 409) return undefined;
      const change =
        expectation.bodyForm && pointer ? bodyFormChange(expectation.bodyForm, pointer) : `a change at ${pointer ?? 'the body'}`;
      const when = rule === 'after-final' ? ' after the job was final' : rule === 'after-conflict' ? ' again after a 409' : '';
      const what = `key reused${when} with ${change}`;
      if (ok && jobId === prediction.jobId) return problem(`${what} passed as a replay`);
      if (ok) return problem(`${what} created a new job`);
      return problem(`${what} answered ${status}`);
    }
    case 'refused':
      return undefined;
  }
}

/**
 * Why a step gave the sequence nothing to build on, or undefined: a create under a key new to
 * the sequence without a 2xx and a jobId, or an invalid create that was not refused with a 4xx.
 * Such an answer is not the idempotency rules' to judge (positive_data_acceptance,
 * negative_data_rejection and not_a_server_error are), and the sequence cannot go on.
 */
export function notAJob(expectation: StepExpectation, answer: { status: number; json: unknown }): string | undefined {
  if (expectation.rule === 'refused')
    return answer.status >= 400 && answer.status < 500 ? undefined : `the invalid create answered ${answer.status}, not a 4xx`;
  // A key in another form refused for its form (a server that takes ASCII keys only, say): no job to compare.
  if (expectation.rule === 'key-form')
    return answer.status >= 400 && answer.status < 500 && answer.status !== 409
      ? `the create under the key in another form answered ${answer.status}, not a job`
      : undefined;
  if (expectation.rule !== 'new-key') return undefined;
  const ok = answer.status >= 200 && answer.status < 300;
  if (ok && typeof jobIdIn(answer.json) === 'string') return undefined;
  return ok ? `the create answered ${answer.status} without a jobId` : `the create answered ${answer.status}, not a job`;
}
