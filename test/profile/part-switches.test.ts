/**
 * Format 2's parts carry the entry's header switches (docs/profiles.md, "Conditions and
 * operations"): a server whose 503 carries Retry-After on one operation and not on another is
 * learnt as a part with `retryAfter`, served so by the engine, and held to it; a part may not
 * set a switch its entry does not have.
 */
import { expect, it } from 'vitest';
import type { CheckContext } from '../../src/conformance/checks/check.js';
import type { Exchange } from '../../src/conformance/exchange.js';
import { ProfileLearner } from '../../src/conformance/profile/learn.js';
import { checksWithProfile } from '../../src/conformance/profile/profile-checks.js';
import { createMockEngine } from '../../src/engine/index.js';
import { ProfileError, resolveProfile } from '../../src/profile/profile.js';
import { evaluationRequest, jsonPost, newKey } from '../support/fixtures.js';

const problems = (document: unknown): string[] => {
  try {
    resolveProfile(document);
    return [];
  } catch (error) {
    if (!(error instanceof ProfileError)) throw error;
    return error.problems.map((problem) => `${problem.entry}: ${problem.message}`);
  }
};

const unavailable = {
  status: 503,
  code: 'service_unavailable',
  retryAfter: true,
  operations: { getJob: { status: 503, code: 'service_unavailable', retryAfter: false } },
};

it('accepts a part setting its entry’s switch, and refuses one its entry does not have', () => {
  expect(problems({ profile: 2, 'A-8': { unavailable } })).toEqual([]);
  expect(
    problems({
      profile: 2,
      'A-16': { conflict: { status: 409, code: 'x', operations: { verifyReport: { status: 409, code: 'y', retryAfter: true } } } },
    }),
  ).toEqual([expect.stringMatching(/^A-16\.conflict\.operations\.verifyReport\.retryAfter: unknown/)]);
  // A 405 part keeps the rule: it must carry Allow, its own switch or the entry's.
  expect(
    problems({
      profile: 2,
      'A-20': {
        'undeclared-method': { status: 405, code: 'x', allow: true, operations: { getJob: { status: 405, code: 'y', allow: false } } },
      },
    }),
  ).toEqual(['A-20.undeclared-method: a 405 must carry an Allow header (RFC 9110 §15.5.6): set allow: true']);
});

let id = 0;
function answered503(operationId: string, retryAfter: boolean): Exchange {
  id += 1;
  const body = { code: 'service_unavailable', message: 'busy' };
  return {
    id,
    operationId,
    caller: 1,
    intent: { kind: 'read', purpose: 'lifecycle' } as unknown as Exchange['intent'],
    request: { method: operationId === 'getJob' ? 'GET' : 'POST', url: 'http://server.test/v0/x', headers: {} },
    response: {
      status: 503,
      headers: retryAfter ? { 'retry-after': '1' } : {},
      contentType: 'application/json',
      bodyText: JSON.stringify(body),
      json: body,
    },
    notes: [],
    rateLimited: false,
    durationMs: 1,
  };
}

it('learns a Retry-After that differs by operation as a part, not as a split it cannot express', () => {
  const learner = new ProfileLearner();
  for (let round = 0; round < 2; round += 1) {
    learner.record(answered503('createEvaluation', true));
    learner.record(answered503('verifyReport', true));
    learner.record(answered503('getJob', false));
  }
  const learnt = learner.result();
  expect(learnt.entries['A-8.unavailable']).toEqual(unavailable);
  expect(learnt.notExpressible).toEqual([]);
});

it('serves the part’s switch on its operation, the entry’s elsewhere', async () => {
  const engine = createMockEngine({ profile: { profile: 2, 'A-8': { unavailable } } });
  const forced = { authorization: 'Bearer k', prefer: 'code=503' };
  const create = await engine.handle(
    new Request('http://mock.test/v0/evaluations', jsonPost(evaluationRequest(), { ...forced, 'idempotency-key': newKey() })),
  );
  const read = await engine.handle(new Request('http://mock.test/v0/jobs/job_x', { headers: forced }));
  expect([create.status, create.headers.get('retry-after') !== null]).toEqual([503, true]);
  expect([read.status, read.headers.get('retry-after')]).toEqual([503, null]);
});

it('holds each operation to its own switch', () => {
  const profile = resolveProfile({ profile: 2, 'A-8': { unavailable } });
  const check = checksWithProfile([], profile).find((candidate) => candidate.name === 'profile:A-8.unavailable')!;
  const judge = (exchange: Exchange) => check.judge(exchange, {} as CheckContext);
  expect(judge(answered503('getJob', false)).outcome).toBe('pass');
  expect(judge(answered503('createEvaluation', true)).outcome).toBe('pass');
  const wrong = judge(answered503('getJob', true));
  expect(wrong.outcome).toBe('fail');
  expect(JSON.stringify(wrong)).toContain('retryAfter');
});
