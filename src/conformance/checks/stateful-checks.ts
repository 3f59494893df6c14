/**
 * @module conformance/checks/stateful-checks
 * Checks over sequences of requests: a created job can be read, idempotency keys replay and
 * conflict, jobs are private to their caller, and a job's status moves the way
 * docs/assumptions.md A-3/A-4 decide. Each judges one exchange; the probe that sent it put what
 * came before (the jobId, the statuses seen) in its intent.
 */
import { condensedHistory, type JobObservation, quoted, showObservation } from '../exchange.js';
import { fail, pass, skip, unjudged } from '../failures.js';
import { answered, type Check, type ExchangeWith, forIntent, type Judge, onlyForJobBodies, received, unlessRateLimited } from './check.js';
import { firstApplying, sequenceStepJudge } from './idempotency-checks.js';

const statusRank: Readonly<Record<string, number>> = { QUEUED: 0, RUNNING: 1, COMPLETE: 2, FAILED: 2 };
const finalStatuses = new Set(['COMPLETE', 'FAILED']);

function jobIdOf(json: unknown): unknown {
  return json && typeof json === 'object' ? (json as { jobId?: unknown }).jobId : undefined;
}

/** The jobId of a poll's whole 200 answer when it is not the job polled. */
function anotherJobPolled(exchange: ExchangeWith<'poll'>): string | undefined {
  if (exchange.response?.status !== 200 || exchange.response.incomplete) return undefined;
  const found = jobIdOf(exchange.response.json);
  return typeof found === 'string' && found !== exchange.intent.jobId ? found : undefined;
}

const anotherJobReason = 'the poll answered another job (job_reaches_final_state reports it)';

function observationOf(json: unknown): JobObservation | undefined {
  const job = json as { status?: unknown; evaluation?: unknown } | undefined;
  if (!job || typeof job.status !== 'string') return undefined;
  return { status: job.status, ...(typeof job.evaluation === 'string' ? { evaluation: job.evaluation } : {}) };
}

export const createdJobReadable: Check = {
  name: 'created_job_readable',
  description: 'a job just created is readable by its creator (200 with the same jobId, not 404)',
  severity: 'required',
  probes: ['lifecycle'],
  judge: forIntent(['read-created'], (exchange, context) =>
    unlessRateLimited(
      answered('200 with the created job', (answer) => {
        const jobId = jobIdOf(answer.response.json);
        if (answer.response.status === 200 && jobId === exchange.intent.jobId) return pass;
        return fail({
          title:
            answer.response.status === 404
              ? 'created job not found'
              : answer.response.status === 200
                ? typeof jobId === 'string'
                  ? 'created job read returned another jobId'
                  : 'created job read returned no jobId'
                : `created job read answered ${answer.response.status}`,
          expected: `200 with jobId ${quoted(exchange.intent.jobId)}`,
          received: received(answer),
        });
      }),
    )(exchange, context),
  ),
};

export const idempotentReplay: Check = {
  name: 'idempotent_replay',
  description: 'the same request sent again with the same Idempotency-Key returns the same jobId',
  severity: 'required',
  assumption: 'A-16',
  probes: ['replay'],
  judge: firstApplying(
    forIntent(['replay'], (exchange, context) =>
      unlessRateLimited(
        answered('2xx with the original jobId', (answer) => {
          const jobId = jobIdOf(answer.response.json);
          if (answer.response.status >= 200 && answer.response.status < 300 && jobId === exchange.intent.jobId) return pass;
          return fail({
            title:
              jobId !== undefined && jobId !== exchange.intent.jobId
                ? 'replay created a new job'
                : `replay answered ${answer.response.status}`,
            expected: `2xx with jobId ${quoted(exchange.intent.jobId)}`,
            received: received(answer),
          });
        }),
      )(exchange, context),
    ),
    // The replays within the stateful sequences (a client's retry of the step before).
    sequenceStepJudge('replay'),
  ),
};

export const reserializedReplay: Check = {
  name: 'reserialized_replay',
  description: 'an equal body re-serialised (keys reordered, whitespace changed) with the same key is a replay, not a conflict',
  severity: 'advisory',
  assumption: 'A-5',
  probes: ['reserialized-replay'],
  requires: ['idempotent_replay'],
  judge: forIntent(['reserialized-replay'], (exchange, context) =>
    unlessRateLimited(
      answered('2xx with the original jobId', (answer) =>
        answer.response.status >= 200 && answer.response.status < 300 && jobIdOf(answer.response.json) === exchange.intent.jobId
          ? pass
          : fail({
              title: `re-serialised replay answered ${answer.response.status}`,
              expected: `2xx with jobId ${quoted(exchange.intent.jobId)} (the digest is over the parsed body, A-5)`,
              received: received(answer),
            }),
      ),
    )(exchange, context),
  ),
};

export const idempotencyConflict: Check = {
  name: 'idempotency_conflict',
  description:
    'an Idempotency-Key reused with a different body gets 409, whatever the change (one per pointer of the body; the order of array items; the Unicode form of a string), and the key stays bound to its first request',
  severity: 'required',
  probes: ['conflict', 'conflict-at-depth'],
  judge: firstApplying(
    forIntent(['conflict'], (exchange, context) =>
      unlessRateLimited(
        answered('409', (answer) =>
          answer.response.status === 409
            ? pass
            : fail({
                title: `key reused with another body answered ${answer.response.status}`,
                expected: '409',
                received: received(answer),
              }),
        ),
      )(exchange, context),
    ),
    // A change at one pointer of the body, at every depth (a digest over part of the body passes it as a replay).
    sequenceStepJudge('conflict'),
    // The first request again after the 409: a server that rebinds the key on a conflict refuses it.
    sequenceStepJudge('after-conflict'),
  ),
};

/** The distinct-keys probe's second create: a jobId other than the earlier key's. */
const distinctFromEarlierJob: Judge = forIntent(['create'], (exchange, context) => {
  const earlier = exchange.intent.distinctFrom;
  if (earlier === undefined) return skip;
  return unlessRateLimited(
    answered('2xx with a new jobId', (answer) => {
      const jobId = jobIdOf(answer.response.json);
      if (answer.response.status < 200 || answer.response.status >= 300 || typeof jobId !== 'string')
        return unjudged(`the second create answered ${answer.response.status} without a jobId`);
      return jobId !== earlier
        ? pass
        : fail({
            title: 'two Idempotency-Keys gave the same job',
            expected: `a jobId other than ${quoted(earlier)}, which a create under another key returned`,
            received: received(answer),
          });
    }),
  )(exchange, context);
});

export const distinctKeysDistinctJobs: Check = {
  name: 'distinct_keys_distinct_jobs',
  description: 'two creates under two different Idempotency-Keys give two different jobs',
  severity: 'required',
  assumption: 'A-16',
  probes: ['distinct-keys'],
  judge: firstApplying(distinctFromEarlierJob, sequenceStepJudge('new-key')),
};

export const secondCallerIsolation: Check = {
  name: 'second_caller_isolation',
  description: 'a job created by the first caller is 404 for the second caller (needs --second-caller-header)',
  severity: 'required',
  assumption: 'A-10',
  probes: ['isolation'],
  judge: forIntent(['second-caller'], (exchange, context) =>
    unlessRateLimited(
      answered('404', (answer) =>
        answer.response.status === 404
          ? pass
          : fail({
              title: `another caller's job answered ${answer.response.status}`,
              expected: `404 for job ${quoted(exchange.intent.jobId)}, which the first caller created`,
              received: received(answer),
            }),
      ),
    )(exchange, context),
  ),
};

export const unknownJobNotFound: Check = {
  name: 'unknown_job_not_found',
  description:
    "a jobId that no job has is 404, whatever reserved or encoded characters it holds ('/', a backslash, '%2F', NUL…); a dot segment ('..') gets a 4xx",
  severity: 'required',
  probes: ['unknown-job', 'path-characters'],
  judge: forIntent(['unknown-job'], (exchange, context) => {
    const { description, dotSegment } = exchange.intent;
    const expected = dotSegment
      ? 'a 4xx: the dot segment names no job, and URL resolution takes the path out of the contract (RFC 3986 section 5.2.4)'
      : '404';
    return unlessRateLimited(
      answered(expected, (answer) => {
        const status = answer.response.status;
        if (dotSegment ? status >= 400 && status < 500 : status === 404) return pass;
        return fail({
          title: description ? `unknown job with ${description.split(',')[0]} answered ${status}` : `unknown job answered ${status}`,
          expected,
          received: received(answer),
        });
      }),
    )(exchange, context);
  }),
};

export const verificationResult: Check = {
  name: 'verification_result',
  description: "verifyReport's documented example gets 200 with a body valid against its 200 schema",
  severity: 'required',
  assumption: 'A-12',
  probes: ['verification'],
  judge: forIntent(['verification-example'], (exchange, context) =>
    unlessRateLimited(
      answered('200 with a VerificationResult', (answer) => {
        const documented = context.operation?.responses.find((response) => response.status === '200');
        const schema = documented ? Object.values(documented.content)[0] : undefined;
        const problems = schema && answer.response.json !== undefined ? context.validator.validateSchema(schema, answer.response.json) : [];
        if (answer.response.status === 200 && answer.response.json !== undefined && problems.length === 0) return pass;
        return fail({
          title:
            answer.response.status === 200 ? '200 without a valid result' : `valid verification input answered ${answer.response.status}`,
          expected: '200 with a body valid against the 200 schema',
          received: `${problems.map((problem) => problem.message).join('; ')} ${received(answer)}`.trim(),
        });
      }),
    )(exchange, context),
  ),
};

export const jobStatusMovesForward: Check = {
  name: 'job_status_moves_forward',
  description: 'between two reads, a job that is not final moves only forward: QUEUED → RUNNING → COMPLETE or FAILED',
  severity: 'advisory',
  assumption: 'A-3',
  // A job final at its first read shows no move: nothing to judge, not a gap (issue 34).
  optionalEvidence: true,
  probes: ['lifecycle'],
  judge: forIntent(['poll'], (exchange) => {
    if (anotherJobPolled(exchange) !== undefined) return unjudged(anotherJobReason);
    const current = observationOf(exchange.response?.status === 200 ? exchange.response.json : undefined);
    const previous = exchange.intent.history.at(-1);
    if (!current || !previous) return unjudged('the poll or the read before it showed no job status');
    if (statusRank[current.status] === undefined || statusRank[previous.status] === undefined)
      return unjudged('a status outside QUEUED, RUNNING, COMPLETE, FAILED (response_schema_conformance reports it)');
    if (finalStatuses.has(previous.status))
      return unjudged('the job was already final at the read before (final_state_stays_final judges it)');
    return statusRank[current.status]! >= statusRank[previous.status]!
      ? pass
      : fail({
          title: `status moved back from ${quoted(previous.status)} to ${quoted(current.status)}`,
          expected: `${quoted(previous.status)} or a later state`,
          received: `${showObservation(current)} after ${condensedHistory(exchange.intent.history)}`,
        });
  }),
};

export const finalStateStaysFinal: Check = {
  name: 'final_state_stays_final',
  description: 'once COMPLETE or FAILED, a job answers the same status and evaluation on every later read',
  severity: 'advisory',
  assumption: 'A-3',
  // A job final at its first read shows no move: nothing to judge, not a gap (issue 34).
  optionalEvidence: true,
  probes: ['lifecycle'],
  judge: forIntent(['poll'], (exchange) => {
    if (anotherJobPolled(exchange) !== undefined) return unjudged(anotherJobReason);
    const current = observationOf(exchange.response?.status === 200 ? exchange.response.json : undefined);
    const final = exchange.intent.history.find((observation) => finalStatuses.has(observation.status));
    if (!final) return unjudged('no read before it showed the job COMPLETE or FAILED');
    if (!current) return unjudged('the read showed no job status');
    return current.status === final.status && current.evaluation === final.evaluation
      ? pass
      : fail({
          title: `final state ${quoted(final.status)} changed to ${quoted(current.status)}`,
          expected: showObservation(final),
          received: `${showObservation(current)} after ${condensedHistory(exchange.intent.history)}`,
        });
  }),
};

export const evaluationWhenComplete: Check = {
  name: 'evaluation_when_complete',
  description: 'a COMPLETE job has an evaluation',
  severity: 'advisory',
  assumption: 'A-4',
  // A job final at its first read shows no move: nothing to judge, not a gap (issue 34).
  optionalEvidence: true,
  probes: ['lifecycle'],
  judge: onlyForJobBodies((exchange, job) => {
    if (job.status !== 'COMPLETE') return unjudged('no job read was COMPLETE');
    return job.evaluation !== undefined
      ? pass
      : fail({
          title: 'COMPLETE job without evaluation',
          expected: 'evaluation: PASS, FAIL or INDETERMINATE',
          received: received(exchange),
        });
  }),
};

export const noEvaluationBeforeComplete: Check = {
  name: 'no_evaluation_before_complete',
  description: 'a QUEUED, RUNNING or FAILED job has no evaluation',
  severity: 'advisory',
  assumption: 'A-4',
  // A job final at its first read shows no move: nothing to judge, not a gap (issue 34).
  optionalEvidence: true,
  probes: ['lifecycle'],
  judge: onlyForJobBodies((exchange, job) => {
    if (job.status === 'COMPLETE') return unjudged('every job read was COMPLETE');
    if (statusRank[job.status as string] === undefined) return skip;
    return job.evaluation === undefined
      ? pass
      : fail({
          title: `${quoted(job.status)} job with an evaluation`,
          expected: 'no evaluation before COMPLETE',
          received: received(exchange),
        });
  }),
};

export const jobReachesFinalState: Check = {
  name: 'job_reaches_final_state',
  description: 'a job polled with backoff reaches COMPLETE or FAILED within --job-timeout',
  severity: 'required',
  assumption: 'A-22',
  probes: ['lifecycle'],
  judge: forIntent(['poll'], (exchange) => {
    const other = anotherJobPolled(exchange);
    if (other !== undefined)
      return fail({
        title: `poll of job ${quoted(exchange.intent.jobId, 40)} answered job ${quoted(other, 40)}`,
        expected: `200 with jobId ${quoted(exchange.intent.jobId)}, the job polled`,
        received: received(exchange),
      });
    const end = exchange.intent.end;
    if (!end) return skip;
    if (end.reachedFinal) return pass;
    const limited = end.rateLimitedPolls > 0 ? `${end.rateLimitedPolls} of ${end.polls} polls still answered 429` : undefined;
    // Rate limited to the end: the server never let the runner see whether the job finished (A-11).
    if (exchange.rateLimited)
      return unjudged(`the job's polls were still rate limited (429) at --job-timeout (${limited}, each waited as Retry-After asked)`);
    const current = observationOf(exchange.response?.status === 200 && !exchange.response.incomplete ? exchange.response.json : undefined);
    const seen = [...exchange.intent.history, ...(current ? [current] : [])];
    return fail({
      title: end.stoppedBy ? 'job polling stopped: no answer' : 'job not final within --job-timeout',
      expected: `COMPLETE or FAILED within ${end.timeoutMs} ms (--job-timeout)`,
      received: `${condensedHistory(seen, end.stoppedBy ? `no answer (${end.stoppedBy})` : undefined)}, after ${Math.round(end.elapsedMs / 1000)} s${limited ? ` (${limited})` : ''}`,
    });
  }),
};

export const limitationsOnlyWhenFinal: Check = {
  name: 'limitations_only_when_final',
  description: 'a QUEUED or RUNNING job has no limitations (they explain a final outcome)',
  severity: 'advisory',
  assumption: 'A-4',
  // A job final at its first read shows no move: nothing to judge, not a gap (issue 34).
  optionalEvidence: true,
  probes: ['lifecycle'],
  judge: onlyForJobBodies((exchange, job) => {
    if (finalStatuses.has(job.status as string)) return unjudged('no job read was QUEUED or RUNNING');
    if (statusRank[job.status as string] === undefined) return skip;
    return job.limitations === undefined
      ? pass
      : fail({
          title: `${quoted(job.status)} job with limitations`,
          expected: 'no limitations property before COMPLETE or FAILED',
          received: received(exchange),
        });
  }),
};
