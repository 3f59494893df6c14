/**
 * --write-profile's learning: an entry is what the answers showed, an entry answered two
 * ways is left out and reported with each answer, and nothing unseen is guessed.
 */
import { expect, it } from 'vitest';
import { learntProfileBlocks } from '../../src/cli/write-profile.js';
import type { Exchange, Intent } from '../../src/conformance/exchange.js';
import { ProfileLearner } from '../../src/conformance/profile/learn.js';
import { profileYaml } from '../../src/profile/write.js';

let id = 0;
function exchange(options: {
  intent: Intent;
  status: number;
  body?: unknown;
  method?: string;
  path?: string;
  headers?: Record<string, string>;
}): Exchange {
  id += 1;
  const bodyText = options.body === undefined ? '' : JSON.stringify(options.body);
  return {
    id,
    operationId: options.path?.startsWith('/v0/jobs') ? 'getJob' : 'createEvaluation',
    caller: 1,
    intent: options.intent,
    request: { method: options.method ?? 'POST', url: `http://server.test${options.path ?? '/v0/evaluations'}`, headers: {} },
    response: {
      status: options.status,
      headers: options.headers ?? {},
      contentType: 'application/json',
      bodyText,
      json: options.body,
    },
    notes: [],
    rateLimited: false,
    durationMs: 1,
  };
}

const mediaType = (contentType: string): Intent => ({
  kind: 'media-type',
  contentType,
  description: contentType,
  expected: { status: 415, because: 'A-21' },
});

it('learns an entry the answers agree on, with what was seen', () => {
  const learner = new ProfileLearner();
  learner.record(exchange({ intent: mediaType('text/plain'), status: 400, body: { code: 'BAD_TYPE', message: 'm' } }));
  learner.record(
    exchange({ intent: mediaType('application/x-www-form-urlencoded'), status: 400, body: { code: 'BAD_TYPE', message: 'm' } }),
  );
  const learnt = learner.result();
  expect(learnt.entries['A-21.media-type']).toEqual({ status: 400, code: 'BAD_TYPE' });
  expect(learnt.comments['A-21.media-type']).toEqual(['seen 2×: POST /v0/evaluations, text/plain → 400 BAD_TYPE']);
  expect(learnt.disagreements).toEqual([]);
  // Nothing else was seen: nothing else is written, no default guessed. Error answers show the
  // headers errors carry (none here: format 2's A-7.error-headers).
  expect(Object.keys(learnt.entries)).toEqual(['A-7.error-headers', 'A-21.media-type']);
  expect(learnt.entries['A-7.error-headers']).toEqual({});
  expect(learnt.notObserved).toContain('A-11.rate-limited');
});

it('leaves out an entry answered two ways, and reports each answer with how often it came', () => {
  const learner = new ProfileLearner();
  learner.record(exchange({ intent: mediaType('text/plain'), status: 400, body: { code: 'BAD_TYPE', message: 'm' } }));
  learner.record(exchange({ intent: mediaType('text/plain'), status: 400, body: { code: 'BAD_TYPE', message: 'm' } }));
  learner.record(exchange({ intent: mediaType(''), status: 415, body: { code: 'UNSUPPORTED', message: 'm' } }));
  const learnt = learner.result();
  expect(learnt.entries['A-21.media-type']).toBeUndefined();
  expect(learnt.disagreements).toEqual([
    {
      entry: 'A-21.media-type',
      // Which requests got two answers: the same operation, the same condition.
      at: 'createEvaluation',
      answers: [
        { value: '{"status":400,"code":"BAD_TYPE"}', count: 2, seen: 'POST /v0/evaluations, text/plain → 400 BAD_TYPE' },
        { value: '{"status":415,"code":"UNSUPPORTED"}', count: 1, seen: expect.stringContaining('→ 415 UNSUPPORTED') },
      ],
    },
  ]);
});

it('learns a rate limit from any 429, with whether Retry-After came, and the timeline from Job bodies', () => {
  const learner = new ProfileLearner();
  learner.record(
    exchange({ intent: mediaType('text/plain'), status: 429, body: { code: 'SLOW_DOWN', message: 'm' }, headers: { 'retry-after': '2' } }),
  );
  learner.record(exchange({ intent: { kind: 'create', purpose: 'lifecycle' }, status: 202, body: { jobId: 'j1', status: 'QUEUED' } }));
  learner.record(
    exchange({
      intent: { kind: 'poll', jobId: 'j1', history: [] },
      status: 200,
      body: { jobId: 'j1', status: 'COMPLETE' },
      method: 'GET',
      path: '/v0/jobs/j1',
    }),
  );
  const learnt = learner.result();
  expect(learnt.entries['A-11.rate-limited']).toEqual({ status: 429, code: 'SLOW_DOWN', retryAfter: true });
  expect(learnt.entries['A-21.media-type']).toBeUndefined();
  expect(learnt.entries['A-3.timeline']).toEqual({ first: 'QUEUED', through: ['QUEUED', 'COMPLETE'] });
  // A COMPLETE job without evaluation: declared absent; FAILED never seen: not declared.
  expect(learnt.entries['A-4.evaluation']).toEqual({ complete: 'absent' });
});

const emptyJobId: Intent = {
  kind: 'negative',
  location: 'path',
  pointer: 'jobId',
  constraint: 'minLength',
  overMaximum: false,
  description: 'jobId shorter than minLength 1',
  expected: { status: 404, because: 'A-20' },
};
const undeclaredPath = (path: string): Intent => ({ kind: 'undeclared-path', path });

it('tells an empty jobId apart from a path outside the contract: a server answering it 400 keeps its A-20.unknown-route, with the condition as a part', () => {
  const learner = new ProfileLearner();
  learner.record(exchange({ intent: emptyJobId, status: 400, method: 'GET', path: '/v0/jobs/', body: { code: 'BAD_ID', message: 'm' } }));
  for (const path of ['/v0/nowhere', '/v1/jobs'])
    learner.record(exchange({ intent: undeclaredPath(path), status: 404, method: 'GET', path, body: { code: 'NOT_FOUND', message: 'm' } }));
  const learnt = learner.result();
  expect(learnt.entries['A-20.unknown-route']).toEqual({
    status: 404,
    code: 'NOT_FOUND',
    conditions: { 'empty-path-parameter': { status: 400, code: 'BAD_ID' } },
  });
  expect(learnt.disagreements).toEqual([]);
  expect(learnt.notExpressible).toEqual([]);
  expect(learnt.comments['A-20.unknown-route']).toContain(
    'conditions.empty-path-parameter: seen 1×: GET /v0/jobs/, an empty jobId → 400 BAD_ID',
  );
});

it('learns nothing of an empty jobId into A-20.unknown-route when it is the only unknown route seen, and says why', () => {
  const learner = new ProfileLearner();
  learner.record(
    exchange({ intent: emptyJobId, status: 404, method: 'GET', path: '/v0/jobs/', body: { code: 'route_not_found', message: 'm' } }),
  );
  const learnt = learner.result();
  expect(learnt.entries['A-20.unknown-route']).toBeUndefined();
  // The credential entries are not learnt either (this run had no credentials): not this test's point.
  expect(learnt.notLearnt.filter((item) => !item.entry.startsWith('A-10.'))).toEqual([
    {
      entry: 'A-20.unknown-route',
      reason: expect.stringMatching(/^only its condition empty-path-parameter was seen .*its answer is unknown/),
    },
  ]);
});

const negative = (constraint: 'required' | 'type', pointer: string): Intent => ({
  kind: 'negative',
  location: 'body',
  pointer,
  constraint,
  overMaximum: false,
  description: `body ${pointer}: ${constraint}`,
  expected: { status: 400, because: 'A-7' },
});

function onOperation(intent: Intent, operationId: string, code: string): Exchange {
  const made = exchange({
    intent,
    status: 400,
    body: { code, message: 'm' },
    path: operationId === 'verifyReport' ? '/v0/verifications' : '/v0/evaluations',
  });
  return { ...made, operationId };
}

it('splits answers that differ by condition into parts, never a disagreement', () => {
  const learner = new ProfileLearner();
  learner.record(onOperation(negative('required', '/operationId'), 'createEvaluation', 'field_missing'));
  learner.record(onOperation(negative('required', '/artifact'), 'verifyReport', 'field_missing'));
  learner.record(onOperation(negative('type', '/operationId'), 'createEvaluation', 'field_invalid'));
  learner.record(onOperation(negative('type', '/artifact'), 'verifyReport', 'field_invalid'));
  learner.record(onOperation(negative('type', '/evidence'), 'createEvaluation', 'field_invalid'));
  const learnt = learner.result();
  expect(learnt.disagreements).toEqual([]);
  expect(learnt.entries['A-7.invalid-request']).toEqual({
    status: 400,
    code: 'field_invalid',
    conditions: { required: { status: 400, code: 'field_missing' } },
  });
  expect(learnt.comments['A-7.invalid-request']).toEqual([
    'conditions.required: seen 2×: POST /v0/evaluations, body /operationId: required → 400 field_missing',
    'seen 3×: POST /v0/evaluations, body /operationId: type → 400 field_invalid',
  ]);
});

it('says which requests got which answer when the same operation and condition got two', () => {
  const learner = new ProfileLearner();
  learner.record(onOperation(negative('type', '/operationId'), 'createEvaluation', 'field_invalid'));
  learner.record(onOperation(negative('type', '/evidence'), 'createEvaluation', 'wrong_type'));
  learner.record(onOperation(negative('required', '/operationId'), 'createEvaluation', 'field_missing'));
  const learnt = learner.result();
  expect(learnt.entries['A-7.invalid-request']).toBeUndefined();
  expect(learnt.disagreements).toEqual([
    {
      entry: 'A-7.invalid-request',
      at: 'createEvaluation, condition type',
      answers: [
        {
          value: '{"status":400,"code":"field_invalid"}',
          count: 1,
          seen: 'POST /v0/evaluations, body /operationId: type → 400 field_invalid',
        },
        { value: '{"status":400,"code":"wrong_type"}', count: 1, seen: 'POST /v0/evaluations, body /evidence: type → 400 wrong_type' },
      ],
    },
  ]);
});

it('reports answers split by operation and condition together as not expressible, and the file ends with them', () => {
  const learner = new ProfileLearner();
  learner.record(onOperation(negative('required', '/operationId'), 'createEvaluation', 'a'));
  learner.record(onOperation(negative('type', '/operationId'), 'createEvaluation', 'b'));
  learner.record(onOperation(negative('required', '/artifact'), 'verifyReport', 'c'));
  learner.record(onOperation(negative('type', '/artifact'), 'verifyReport', 'd'));
  const learnt = learner.result();
  expect(learnt.entries['A-7.invalid-request']).toBeUndefined();
  expect(learnt.disagreements).toEqual([]);
  expect(learnt.notLearnt.filter((item) => !item.entry.startsWith('A-10.'))).toEqual([
    { entry: 'A-7.invalid-request', reason: expect.stringContaining('which format 2 cannot declare') },
  ]);
  expect(learnt.notExpressible).toEqual([
    expect.stringMatching(
      /^A-7\.invalid-request answered each operation and condition its own way.*verifyReport, condition type: \{"status":400,"code":"d"\}/,
    ),
  ]);
  const text = profileYaml({ entries: learnt.entries, blocks: learntProfileBlocks(learnt) });
  const lines = text.trimEnd().split('\n');
  const last = lines.lastIndexOf('# Not expressible in profile format 2 (what this run saw that no entry can hold):');
  expect(last).toBeGreaterThan(0);
  expect(lines.slice(last + 1).every((line) => line.startsWith('#') && line.length <= 104)).toBe(true);
  expect(
    lines
      .slice(last + 1)
      .map((line) => line.replace(/^# (- | {2})/, ''))
      .join(' '),
  ).toContain('{"status":400,"code":"d"}');
});
