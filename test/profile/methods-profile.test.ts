/**
 * Format 2's method, strictness and order entries (docs/profiles.md, "Methods, strictness and
 * order") served by the MSW handlers as by the mock server, refused when they would break a
 * rule, and read by the one JSON scan the engine uses for duplicate members.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { setupMockService } from '../../mocks/node.js';
import { checks } from '../../src/conformance/checks/registry.js';
import { checksWithProfile } from '../../src/conformance/profile/profile-checks.js';
import { duplicateMembers } from '../../src/profile/engine-strictness.js';
import { type ProfileError, resolveProfile } from '../../src/profile/profile.js';
import { evaluationRequest, newKey } from '../support/fixtures.js';

const baseUrl = 'http://methods.test';
const declared = {
  profile: 2,
  'A-7': { precedence: { order: ['missing-key', 'media-type'] } },
  'A-16': { 'non-ascii-key': { status: 400, code: 'invalid_key' } },
  'A-20': { options: { status: 204, allow: true }, head: { status: 405 }, allow: { adds: ['HEAD', 'OPTIONS'] } },
  'A-21': { 'duplicate-members': 'first-wins', charset: { status: 415, code: 'unsupported_charset' } },
};
const mock = setupMockService({ baseUrl, profile: declared });
const plain = setupMockService({ baseUrl: 'http://plain.test' });

beforeAll(() => {
  mock.server.listen({ onUnhandledRequest: 'error' });
});
afterAll(() => mock.server.close());

const auth = { authorization: 'Bearer alice' };
const post = (headers: Record<string, string>, body: string) =>
  fetch(`${baseUrl}/v0/evaluations`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json', ...headers }, body });
const answer = async (response: Response) => {
  const text = await response.text();
  return [response.status, text ? (JSON.parse(text) as { code?: string }).code : '', response.headers.get('allow')];
};

it('answers OPTIONS 204 with the Allow list, refuses HEAD, and lists HEAD and OPTIONS on a 405', async () => {
  expect(await answer(await fetch(`${baseUrl}/v0/evaluations`, { method: 'OPTIONS' }))).toEqual([204, '', 'POST, OPTIONS']);
  expect(await answer(await fetch(`${baseUrl}/health`, { method: 'HEAD' }))).toEqual([405, '', 'GET, HEAD, OPTIONS']);
  expect(await answer(await fetch(`${baseUrl}/health`, { method: 'DELETE' }))).toEqual([405, 'method_not_allowed', 'GET, HEAD, OPTIONS']);
  expect((await fetch(`${baseUrl}/health`)).status).toBe(200);
});

it('reads the first of two members of one name, and refuses a non-UTF-8 charset and a key outside ASCII', async () => {
  const [first, ...others] = Object.entries(evaluationRequest());
  const rest = others.map(([name, value]) => `,${JSON.stringify(name)}:${JSON.stringify(value)}`).join('');
  const member = (value: unknown) => `${JSON.stringify(first![0])}:${JSON.stringify(value)}`;
  expect((await post({ 'idempotency-key': newKey() }, `{${member(first![1])},${member(7)}${rest}}`)).status).toBe(202);
  expect(await answer(await post({ 'idempotency-key': newKey() }, `{${member(7)},${member(first![1])}${rest}}`))).toEqual([
    400,
    'invalid_request',
    null,
  ]);
  const valid = JSON.stringify(evaluationRequest());
  expect(await answer(await post({ 'idempotency-key': newKey(), 'content-type': 'application/json; charset=iso-8859-1' }, valid))).toEqual([
    415,
    'unsupported_charset',
    null,
  ]);
  expect((await post({ 'idempotency-key': newKey(), 'content-type': 'application/json; charset=UTF-8' }, valid)).status).toBe(202);
  expect(await answer(await post({ 'idempotency-key': 'clé-1' }, valid))).toEqual([400, 'invalid_key', null]);
});

it('judges the problems of a request in the declared order, the rest in the mock’s', async () => {
  // A missing key before malformed JSON (the mock answers invalid_json) and before the media type.
  expect(await answer(await post({}, '{"profile":'))).toEqual([400, 'missing_idempotency_key', null]);
  expect(await answer(await post({ 'content-type': 'text/plain' }, '{'))).toEqual([400, 'missing_idempotency_key', null]);
  expect(await answer(await post({ 'idempotency-key': newKey(), 'content-type': 'text/plain' }, '{'))).toEqual([
    415,
    'unsupported_media_type',
    null,
  ]);
  // Over a maximum and invalid: the mock's order (over-maximum first) holds for names left out.
  const both = JSON.stringify({ ...evaluationRequest({ operationId: 'x'.repeat(129) }), profile: 7 });
  expect(await answer(await post({ 'idempotency-key': newKey() }, both))).toEqual([413, 'limit_exceeded', null]);
});

it('answers as the mock always did without these entries', async () => {
  plain.server.listen({ onUnhandledRequest: 'bypass' });
  try {
    const at = 'http://plain.test';
    expect((await fetch(`${at}/health`, { method: 'HEAD' })).status).toBe(200);
    const options = await fetch(`${at}/v0/evaluations`, { method: 'OPTIONS' });
    expect([options.status, options.headers.get('allow')]).toEqual([405, 'POST']);
    const missing = await fetch(`${at}/v0/evaluations`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: '{"profile":',
    });
    expect((await missing.json()).code).toBe('invalid_json');
  } finally {
    plain.server.close();
  }
});

it('refuses an order naming a problem twice, an unknown problem, and the entries in a format 1 file', () => {
  const refusal = (document: unknown) => {
    try {
      resolveProfile(document, 'p.yaml');
      return '';
    } catch (error) {
      return (error as ProfileError).message;
    }
  };
  expect(refusal({ profile: 2, 'A-7': { precedence: { order: ['missing-key', 'missing-key'] } } })).toContain(
    'A-7.precedence: order: names a problem more than once',
  );
  expect(refusal({ profile: 2, 'A-7': { precedence: { order: ['auth'] } } })).toContain('A-7.precedence');
  expect(refusal({ profile: 2, 'A-21': { 'duplicate-members': { status: 422, code: 'dup' } } })).toContain('allowed: 400');
  expect(refusal({ profile: 1, 'A-20': { head: { status: 405 } } })).toContain(
    'A-20.head: is an entry of profile format 2: set profile: 2',
  );
});

it('finds members named twice in one object only, however deep, and keeps the first when asked', () => {
  const text = '{"a":1,"list":[{"id":1},{"id":2}],"b":{"c":1,"c":{"d":1,"d":2}},"a":2}';
  const scan = duplicateMembers(text);
  expect(scan.first).toBe('c');
  expect(JSON.parse(scan.firstWins())).toEqual({ a: 1, list: [{ id: 1 }, { id: 2 }], b: { c: 1 } });
  expect(duplicateMembers('{"a":"\\"a\\"","\\u0061":1}').first).toBe('a');
  expect(duplicateMembers('{"list":[{"id":1},{"id":2}]}').first).toBeUndefined();
});

it('lets the oversized-body advisory check give way to a declared order', () => {
  const profile = resolveProfile(declared, 'p.yaml');
  const names = checksWithProfile(checks, profile).map((check) => check.name);
  expect(names).not.toContain('oversized_body_rejected');
  expect(names).toContain('profile:A-7.precedence');
  expect(names).toContain('profile:A-20.options');
});
