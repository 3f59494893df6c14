/**
 * @module conformance/checks/idempotency-checks
 * Checks over the stateful sequences (src/conformance/stateful): each create of a sequence
 * carries the reference model's prediction and the rule it is held to, and the check that
 * names the rule judges it. Six rules have checks of their own here; the others (a replay, a
 * conflict at a pointer or of form only, the first request after a 409, a new key) are judged
 * by the existing checks of those rules, which take `sequenceStepJudge` beside their own
 * probes' judge.
 */
import { fail, pass, skip, unjudged } from '../failures.js';
import { expectedAnswer, notAJob, type SequenceRule, stepProblem } from '../stateful/model.js';
import { answered, type Check, type CheckContext, forIntent, type Judge, received, unlessRateLimited } from './check.js';

/** Judges the sequence steps held to `rule`: the answer must be what the model predicted. */
export function sequenceStepJudge(rule: SequenceRule): Judge {
  return forIntent(['sequence-step'], (exchange, context) => {
    if (exchange.intent.rule !== rule) return skip;
    return unlessRateLimited(
      answered(expectedAnswer(exchange.intent), (answer) => {
        const invalid = invalidJobIdIn(answer.response.json, context);
        if (invalid) return unjudged(`${invalid}: no job to compare (response_schema_conformance reports it)`);
        const nothing = notAJob(exchange.intent, answer.response);
        if (nothing) return unjudged(`${nothing}: no job to compare`);
        const problem = stepProblem(exchange.intent, answer.response);
        return problem ? fail({ ...problem, received: received(answer) }) : pass;
      }),
    )(exchange, context);
  });
}

/**
 * Why an answer's jobId cannot stand for a job, when it cannot: not valid against the Job
 * schema's jobId (an empty one, say, from a mock that fills in nothing). Comparing such ids
 * would pass a server whose every job is the same nothing.
 */
function invalidJobIdIn(json: unknown, context: CheckContext): string | undefined {
  const jobId = json && typeof json === 'object' && !Array.isArray(json) ? (json as { jobId?: unknown }).jobId : undefined;
  if (typeof jobId !== 'string') return undefined;
  const job = context.contract.schemas.Job as { properties?: Record<string, object> } | undefined;
  const schema = job?.properties?.jobId ?? { type: 'string', minLength: 1, maxLength: 128 };
  return context.validator.validateSchema(schema, jobId).length === 0
    ? undefined
    : 'the create answered a jobId not valid against the Job schema';
}

/** The first of `judges` that applies to the exchange decides (a plain skip means "not mine"). */
export function firstApplying(...judges: readonly Judge[]): Judge {
  return (exchange, context) => {
    for (const judge of judges) {
      const verdict = judge(exchange, context);
      if (verdict.outcome !== 'skip' || verdict.reason) return verdict;
    }
    return skip;
  };
}

export const keyScopedToCaller: Check = {
  name: 'key_scoped_to_caller',
  description:
    "a second caller's create under the first caller's Idempotency-Key is a new job of its own: not the first caller's job, not a 409 (needs --second-caller-header)",
  severity: 'required',
  assumption: 'A-10',
  probes: ['key-scope'],
  // A server that shares jobs between callers, or gives one job for every key, shares keys too: report that once.
  requires: ['second_caller_isolation', 'distinct_keys_distinct_jobs'],
  judge: sequenceStepJudge('key-scope'),
};

export const keysComparedExactly: Check = {
  name: 'keys_compared_exactly',
  description:
    "Idempotency-Keys differing only by letter case, whitespace or Unicode normalisation form are different keys: another body under the second is a new job, not a 409 or the first key's job",
  severity: 'required',
  assumption: 'A-16',
  probes: ['key-forms'],
  // A server that gives one job for every key gives one for every form of a key too: report that once.
  requires: ['distinct_keys_distinct_jobs'],
  judge: sequenceStepJudge('key-form'),
};

export const replayAfterJobFinal: Check = {
  name: 'replay_after_job_final',
  description:
    'once its job is COMPLETE or FAILED, a key still replays it, at once and after --replay-wait: the same request answers the same jobId, not a new job',
  severity: 'required',
  assumption: 'A-16',
  probes: ['replay-after-final'],
  requires: ['idempotent_replay'],
  judge: sequenceStepJudge('after-final'),
};

export const concurrentDuplicatesOneJob: Check = {
  name: 'concurrent_duplicates_one_job',
  description:
    'N identical creates released together (--concurrency, 3 rounds) are one job: every answer 2xx with the same jobId, and a replay gives it',
  severity: 'required',
  assumption: 'A-16',
  probes: ['concurrent-duplicates'],
  // A server whose replay makes a new job, or that gives one job for every key, races nothing new.
  requires: ['idempotent_replay', 'distinct_keys_distinct_jobs'],
  judge: sequenceStepJudge('concurrent'),
};

export const concurrentBodiesOneAccepted: Check = {
  name: 'concurrent_bodies_one_accepted',
  description: 'N different bodies released together under one new Idempotency-Key: exactly one is accepted (2xx), every other gets 409',
  severity: 'required',
  assumption: 'A-16',
  probes: ['concurrent-bodies'],
  // Without any 409, or with identical creates already racing into several jobs, this says nothing new.
  requires: ['idempotency_conflict', 'concurrent_duplicates_one_job'],
  judge: sequenceStepJudge('concurrent-conflict'),
};

export const refusedRequestFreesKey: Check = {
  name: 'refused_request_frees_key',
  description:
    'a create refused with a 4xx (an invalid body) does not take its Idempotency-Key: the corrected request under it is a new job, not a 409',
  severity: 'advisory',
  assumption: 'A-16',
  probes: ['refused-then-valid'],
  judge: sequenceStepJudge('after-refusal'),
};
