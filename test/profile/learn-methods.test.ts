/**
 * The learner of the method, strictness and order entries (src/conformance/profile/learn-methods.ts):
 * what it writes when the answers agree, and what it leaves "not learnt", with why, when they do not.
 */
import { expect, it } from 'vitest';
import { learnMethods, orderFrom, type SeenValue, winnerOf } from '../../src/conformance/profile/learn-methods.js';
import type { EntryName } from '../../src/profile/entries.js';
import { defaultMethodEntries } from '../../src/profile/methods-vocabulary.js';
import { resolveProfile } from '../../src/profile/profile.js';

const single = {
  'A-21.media-type': { status: 415, code: 'unsupported_media_type' },
  'A-21.malformed-json': { status: 400, code: 'invalid_json' },
  'A-16.missing-key': { status: 400, code: 'missing_idempotency_key' },
  'A-7.invalid-request': { status: 400, code: 'invalid_request' },
  'A-21.not-an-object': { status: 400, code: 'invalid_request' },
};

function learn(seen: Partial<Record<EntryName, SeenValue[]>>) {
  const entries: Record<string, unknown> = { ...single };
  const comments: Record<string, string[]> = {};
  const notLearnt = learnMethods({ values: (entry) => seen[entry] ?? [], entries, comments });
  return { entries, comments, notLearnt };
}

const pair = (first: string, second: string, status: number, code: string): SeenValue => ({
  value: { first, second, status, code },
  count: 1,
  seen: `POST /v0/evaluations, ${first} and ${second} → ${status} ${code}`,
});

it('learns an order from the pairs, the mock’s order choosing where they say nothing', () => {
  const { entries, comments } = learn({
    'A-7.precedence': [
      pair('malformed-json', 'missing-key', 400, 'missing_idempotency_key'),
      pair('media-type', 'missing-key', 400, 'missing_idempotency_key'),
    ],
  });
  expect(entries['A-7.precedence']).toEqual({
    order: ['missing-key', 'media-type', 'body-too-large', 'malformed-json', 'not-an-object', 'over-maximum', 'invalid-request'],
  });
  expect(comments['A-7.precedence']![0]).toContain('missing-key judged before malformed-json, media-type');
});

it('says why a pair told nothing: both problems answer alike, neither answers so, or one was never learnt', () => {
  expect(winnerOf({ first: 'not-an-object', second: 'invalid-request', status: 400, code: 'invalid_request' }, single)).toEqual({
    why: 'both answer 400 invalid_request: the answer cannot tell which was judged',
  });
  expect(winnerOf({ first: 'malformed-json', second: 'missing-key', status: 422, code: 'nope' }, single)).toEqual({
    why: "answered 422 nope, which is neither's",
  });
  expect(winnerOf({ first: 'over-maximum', second: 'missing-key', status: 413, code: 'limit_exceeded' }, single)).toEqual({
    why: 'A-2.over-maximum not learnt, so the answer cannot be matched',
  });
  const { entries, notLearnt } = learn({ 'A-7.precedence': [pair('malformed-json', 'missing-key', 422, 'nope')] });
  expect(entries['A-7.precedence']).toBeUndefined();
  expect(notLearnt).toEqual([
    {
      entry: 'A-7.precedence',
      reason: expect.stringContaining(
        "no pair of problems told which is judged first: malformed-json + missing-key: answered 422 nope, which is neither's",
      ),
    },
  ]);
});

it('refuses an order the pairs make circular', () => {
  expect(
    orderFrom(
      [
        ['media-type', 'missing-key'],
        ['missing-key', 'media-type'],
      ],
      defaultMethodEntries['A-7.precedence'].order,
    ),
  ).toBeUndefined();
});

it('tells last-wins, first-wins and a refusal of duplicate members apart, and leaves out answers neither explains', () => {
  const duplicate = (variant: string, shown: Record<string, unknown>): SeenValue => ({
    value: { variant, ...shown },
    count: 1,
    seen: variant,
  });
  const refused = { status: 400, code: 'invalid_request' };
  const accepted = { accepted: true };
  const of = (first: Record<string, unknown>, last: Record<string, unknown>) =>
    learn({ 'A-21.duplicate-members': [duplicate('first-valid', first), duplicate('last-valid', last)] });
  expect(of(refused, accepted).entries['A-21.duplicate-members']).toBe('last-wins');
  expect(of(accepted, refused).entries['A-21.duplicate-members']).toBe('first-wins');
  expect(of({ status: 400, code: 'dup' }, { status: 400, code: 'dup' }).entries['A-21.duplicate-members']).toEqual({
    status: 400,
    code: 'dup',
  });
  const both = of(accepted, accepted);
  expect(both.entries['A-21.duplicate-members']).toBeUndefined();
  expect(both.notLearnt[0]!.reason).toContain('neither member read alone explains the answers');
});

it('learns the Allow list part by part, and leaves it out when paths list OPTIONS unlike each other', () => {
  const list = (value: Record<string, unknown>): SeenValue => ({ value, count: 1, seen: JSON.stringify(value) });
  expect(learn({ 'A-20.allow': [list({ head: false, options: true }), list({ options: true })] }).entries['A-20.allow']).toEqual({
    adds: ['OPTIONS'],
  });
  const mixed = learn({ 'A-20.allow': [list({ options: true }), list({ options: false })] });
  expect(mixed.entries['A-20.allow']).toBeUndefined();
  expect(mixed.notLearnt[0]!.reason).toContain('OPTIONS is listed on some paths and not others');
  const twoWays = learn({ 'A-20.options': [list({ status: 204, allow: true }), list({ refused: true })] });
  expect(twoWays.notLearnt[0]).toEqual({ entry: 'A-20.options', reason: expect.stringContaining('answered 2 ways') });
});

const verifyPair = (first: string, second: string, status: number, code: string): SeenValue => ({
  value: { first, second, operation: 'verifyReport', status, code },
  count: 1,
  seen: `POST /v0/verifications, ${first} and ${second} → ${status} ${code}`,
});

it('learns verifyReport’s own order only where its pairs differ from createEvaluation’s', () => {
  const agreeing = learn({
    'A-7.precedence': [
      pair('media-type', 'malformed-json', 415, 'unsupported_media_type'),
      verifyPair('media-type', 'malformed-json', 415, 'unsupported_media_type'),
    ],
  });
  expect(agreeing.entries['A-7.precedence']).toEqual({ order: defaultMethodEntries['A-7.precedence'].order });
  const differing = learn({
    'A-7.precedence': [
      pair('media-type', 'malformed-json', 415, 'unsupported_media_type'),
      verifyPair('media-type', 'malformed-json', 400, 'invalid_json'),
    ],
  });
  expect(differing.entries['A-7.precedence']).toEqual({
    order: defaultMethodEntries['A-7.precedence'].order,
    operations: {
      verifyReport: {
        order: ['malformed-json', 'media-type', 'body-too-large', 'not-an-object', 'over-maximum', 'invalid-request', 'missing-key'],
      },
    },
  });
  expect(differing.comments['A-7.precedence']).toContainEqual(
    expect.stringContaining('verifyReport: malformed-json judged before media-type'),
  );
});

it('matches a verifyReport answer to its operation’s part of each entry, and asks it no oversized body', () => {
  const entries = {
    ...single,
    'A-7.invalid-request': { status: 400, code: 'invalid_request', operations: { verifyReport: { status: 422, code: 'bad_report' } } },
  };
  const asked = { first: 'media-type', second: 'invalid-request', operation: 'verifyReport' };
  expect(winnerOf({ ...asked, status: 422, code: 'bad_report' }, entries)).toEqual({ winner: 'invalid-request', loser: 'media-type' });
  // createEvaluation's own answer is no verifyReport answer.
  expect(winnerOf({ ...asked, status: 400, code: 'invalid_request' }, entries)).toEqual({
    why: "answered 400 invalid_request, which is neither's",
  });
  expect(
    winnerOf(
      { ...asked, second: 'body-too-large', status: 400, code: 'body_too_large' },
      { ...entries, 'A-13.body-too-large': { status: 413, code: 'body_too_large' } },
    ),
  ).toEqual({
    why: 'verifyReport is asked no pair with an oversized body',
  });
});

it('refuses an order declared for an operation without a body to judge, with the operations it may name', () => {
  expect(() =>
    resolveProfile({ profile: 2, 'A-7': { precedence: { order: ['media-type'], operations: { getJob: { order: ['media-type'] } } } } }),
  ).toThrow(/getJob/);
  expect(
    resolveProfile({
      profile: 2,
      'A-7': { precedence: { order: ['media-type'], operations: { verifyReport: { order: ['malformed-json'] } } } },
    }).entries['A-7.precedence'],
  ).toEqual({
    order: ['media-type'],
    operations: { verifyReport: { order: ['malformed-json'] } },
  });
});
