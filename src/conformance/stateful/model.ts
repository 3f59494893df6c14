/**
 * @module conformance/stateful/model
 * The reference model the stateful sequences are judged by: the idempotency rules of
 * docs/assumptions.md as a small state machine. Keys are scoped per caller (A-10, A-16); the
 * request digest covers the whole parsed body (A-5); a key stays bound to its job for the key's
 * whole life, whether the job is final or not (A-16); a refused request binds nothing; N
 * identical creates sent at once are one job (A-16). Given the steps answered so far, it
 * predicts the answer to the next create and names the rule that answer is held to, so a
 * mismatch is reported by the check that names the rule, whichever sequence it happened in.
 */

export type Caller = 1 | 2;

/**
 * One step of a sequence. Keys are symbolic (an index), materialised per run as seed-derived
 * Idempotency-Keys, so a sequence rerun while shrinking uses keys the server has never seen.
 * `pointer` names the one place where the body differs from the sequence's base body.
 */
export type Step =
  /** `invalid`: the body breaks the spec (a required property left out), so the create is refused. */
  | { readonly kind: 'create'; readonly caller: Caller; readonly key: number; readonly pointer?: string; readonly invalid?: boolean }
  /** `count` identical creates sent at once. */
  | { readonly kind: 'burst'; readonly caller: Caller; readonly key: number; readonly count: number; readonly pointer?: string }
  /** Polls the job bound to the caller's key until it is COMPLETE or FAILED. */
  | { readonly kind: 'await-final'; readonly caller: Caller; readonly key: number };

/** The rule a create is held to, decided by what the model knows when it is sent. */
export type SequenceRule = 'new-key' | 'replay' | 'conflict' | 'key-scope' | 'after-final' | 'concurrent' | 'refused' | 'after-refusal';

/**
 * The check that reports a broken rule (checks/registry.ts). An invalid create ('refused') only
 * sets up the step after it: no check judges its 4xx, and a 5xx is not_a_server_error's.
 */
export const checkOfRule: Readonly<Record<Exclude<SequenceRule, 'refused'>, string>> = {
  'new-key': 'distinct_keys_distinct_jobs',
  replay: 'idempotent_replay',
  conflict: 'idempotency_conflict',
  'key-scope': 'key_scoped_to_caller',
  'after-final': 'replay_after_job_final',
  concurrent: 'concurrent_duplicates_one_job',
  'after-refusal': 'refused_request_frees_key',
};

/** What the model predicts for a create. */
export type Prediction =
  /** 2xx with a jobId the sequence has not seen; `otherCallersJob`: the job the other caller has under the same key. */
  | { readonly answer: 'new-job'; readonly notJobs: readonly string[]; readonly otherCallersJob?: string }
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
}

/** The part of a step's intent the judgement needs (exchange.ts carries it as 'sequence-step'). */
export interface StepExpectation {
  readonly rule: SequenceRule;
  readonly prediction: Prediction;
  readonly pointer?: string;
  readonly burst?: BurstOutcome;
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
}

export class IdempotencyModel {
  private readonly bindings = new Map<string, Binding>();
  private readonly jobs: string[] = [];
  /** Keys whose only use so far was refused: still free (A-16). */
  private readonly refused = new Set<string>();

  /** The prediction for a create (or a burst) of `caller` under `key` with a body of canonical text `body`. */
  predict(options: { caller: Caller; key: number; body: string; burst?: boolean; invalid?: boolean }): {
    rule: SequenceRule;
    prediction: Prediction;
  } {
    if (options.invalid) return { rule: 'refused', prediction: { answer: 'refused' } };
    const own = this.bindings.get(bindingKey(options.caller, options.key));
    const other = this.bindings.get(bindingKey(options.caller === 1 ? 2 : 1, options.key));
    if (!own) {
      const prediction: Prediction = {
        answer: 'new-job',
        notJobs: [...this.jobs],
        ...(other ? { otherCallersJob: other.jobId } : {}),
      };
      // A burst is judged as a race first; a second caller's first use of a key as a scoping question.
      const rule: SequenceRule = options.burst
        ? 'concurrent'
        : other
          ? 'key-scope'
          : this.refused.has(bindingKey(options.caller, options.key))
            ? 'after-refusal'
            : 'new-key';
      return { rule, prediction };
    }
    if (own.body !== options.body)
      return { rule: own.final ? 'after-final' : 'conflict', prediction: { answer: 'conflict', jobId: own.jobId } };
    const rule: SequenceRule = own.final ? 'after-final' : options.burst || own.byBurst ? 'concurrent' : 'replay';
    return { rule, prediction: { answer: 'same-job', jobId: own.jobId } };
  }

  /** Takes in an answer that matched its prediction: a new job binds the key. */
  observe(options: { caller: Caller; key: number; body: string; prediction: Prediction; jobId?: string; burst?: boolean }): void {
    if (options.prediction.answer === 'refused') this.refused.add(bindingKey(options.caller, options.key));
    if (options.prediction.answer !== 'new-job' || options.jobId === undefined) return;
    this.bindings.set(bindingKey(options.caller, options.key), {
      body: options.body,
      jobId: options.jobId,
      byBurst: options.burst === true,
      final: false,
    });
    this.jobs.push(options.jobId);
  }

  /** The job bound to the caller's key, if any. */
  jobOf(caller: Caller, key: number): string | undefined {
    return this.bindings.get(bindingKey(caller, key))?.jobId;
  }

  /** The job bound to the caller's key was seen COMPLETE or FAILED. */
  markFinal(caller: Caller, key: number): void {
    const binding = this.bindings.get(bindingKey(caller, key));
    if (binding) binding.final = true;
  }
}

function bindingKey(caller: Caller, key: number): string {
  return `${caller}:${key}`;
}

function jobIdIn(json: unknown): unknown {
  return json && typeof json === 'object' && !Array.isArray(json) ? (json as { jobId?: unknown }).jobId : undefined;
}

const shortId = (jobId: string) => (jobId.length > 80 ? `${jobId.slice(0, 80)}… (${jobId.length} characters)` : jobId);

/** What was due, in words, for a step's failure. */
export function expectedAnswer(expectation: StepExpectation): string {
  const { prediction, rule } = expectation;
  if (expectation.burst)
    return `every one of the ${expectation.burst.size} answers 2xx with one and the same jobId (A-16: concurrent duplicates are one job)`;
  switch (prediction.answer) {
    case 'new-job':
      return rule === 'key-scope'
        ? `2xx with a new job of the second caller's own, not job ${shortId(prediction.otherCallersJob ?? '')} and not 409: keys are scoped per caller (A-10, A-16)`
        : rule === 'after-refusal'
          ? '2xx with a new job: a request refused with a 4xx does not consume its key, so a corrected request may use it (A-16)'
          : '2xx with a jobId no earlier step of the sequence was given (a new key is a new job, A-16)';
    case 'refused':
      return 'a 4xx: the body breaks the spec';
    case 'same-job':
      return rule === 'after-final'
        ? `2xx with jobId ${shortId(prediction.jobId)}: the key is still bound to its job once the job is final (A-16)`
        : `2xx with jobId ${shortId(prediction.jobId)}, the key's job (A-16)`;
    case 'conflict':
      return `409: the body differs from the key's first request${expectation.pointer ? ` at ${expectation.pointer}` : ''}, and the digest covers the whole parsed body (A-5)`;
  }
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
        rule === 'after-final' ? 'replay after the job was final' : rule === 'concurrent' ? 'replay after creates sent at once' : 'replay';
      if (ok && jobId === prediction.jobId) return undefined;
      if (ok && jobId !== undefined) return problem(`${what} answered another job`);
      return problem(ok ? `${what} answered no jobId` : `${what} answered ${status}`);
    }
    case 'conflict': {
      if (status === 409) return undefined;
      const what = `key reused${rule === 'after-final' ? ' after the job was final' : ''} with a change at ${pointer ?? 'the body'}`;
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
  if (expectation.rule !== 'new-key') return undefined;
  const ok = answer.status >= 200 && answer.status < 300;
  if (ok && typeof jobIdIn(answer.json) === 'string') return undefined;
  return ok ? `the create answered ${answer.status} without a jobId` : `the create answered ${answer.status}, not a job`;
}
