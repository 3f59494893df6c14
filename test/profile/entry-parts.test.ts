/**
 * Format 2's answers per operation and per condition (A-50): bounded to the names each entry
 * knows, held to the entry's statuses part by part, refused in a format 1 file, and served by
 * the MSW handlers as by the mock server (one engine); the default profile is unchanged.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { setupMockService } from '../../mocks/node.js';
import { conditionsOf, profileOperations } from '../../src/profile/entry-parts.js';
import { ProfileError, profileJsonSchema, resolveProfile } from '../../src/profile/profile.js';
import { evaluationRequest } from '../support/fixtures.js';

const problems = (document: unknown): string[] => {
  try {
    resolveProfile(document);
    return [];
  } catch (error) {
    if (!(error instanceof ProfileError)) throw error;
    return error.problems.map((problem) => `${problem.entry}: ${problem.message}`);
  }
};

it('lists in the JSON Schema the conditions and operations each entry knows, for an editor to complete', () => {
  type Node = { properties?: Record<string, Node>; anyOf?: Node[]; propertyNames?: { enum?: string[] }; additionalProperties?: unknown };
  const schema = profileJsonSchema() as Node;
  const entry = (name: string): Node => {
    const [register, point] = [name.slice(0, name.indexOf('.')), name.slice(name.indexOf('.') + 1)];
    const node = schema.properties![register]!.properties![point]!;
    return node.properties ? node : node.anyOf!.find((option) => option.properties?.conditions)!;
  };
  for (const [name, conditions] of Object.entries(conditionsOf)) {
    const part = entry(name).properties!.conditions!;
    expect(Object.keys(part.properties ?? {}).sort(), name).toEqual([...conditions].sort());
    expect(part.additionalProperties, name).toBe(false);
  }
  // An entry without conditions lists none, and says no other name is allowed.
  const media = entry('A-21.media-type').properties!.conditions!;
  expect([Object.keys(media.properties ?? {}), media.additionalProperties]).toEqual([[], false]);
  expect(entry('A-2.over-maximum').properties!.operations!.propertyNames?.enum).toEqual([...profileOperations]);
});

it('refuses a part naming an operation or condition the entry does not know, listing those it does', () => {
  expect(
    problems({ profile: 2, 'A-2': { 'over-maximum': { status: 413, code: 'x', operations: { deleteJob: { status: 413, code: 'y' } } } } }),
  ).toEqual([
    "A-2.over-maximum: operations.deleteJob: unknown operation 'deleteJob'; known: health, createEvaluation, getJob, verifyReport",
  ]);
  expect(
    problems({ profile: 2, 'A-21': { 'media-type': { status: 415, code: 'x', conditions: { pattern: { status: 400, code: 'y' } } } } }),
  ).toEqual(["A-21.media-type: conditions.pattern: unknown condition 'pattern': this entry has no conditions a client can tell apart"]);
});

it('holds each part to the entry’s statuses: 400 for a limit on verifyReport, the entry’s own rule elsewhere', () => {
  expect(
    problems({
      profile: 2,
      'A-2': { 'over-maximum': { status: 413, code: 'x', operations: { verifyReport: { status: 413, code: 'y' } } } },
    }),
  ).toEqual([
    'A-2.over-maximum: operations.verifyReport: status 413 breaks a rule the contract states: verifyReport documents no 413: its answers over a limit are 400 (A-2) (allowed: 400)',
  ]);
  expect(
    problems({ profile: 2, 'A-16': { 'missing-key': { status: 400, code: 'x', conditions: { minLength: { status: 422, code: 'y' } } } } }),
  ).toEqual([expect.stringMatching(/^A-16\.missing-key: conditions\.minLength: status 422 breaks a rule the contract states/)]);
  expect(
    problems({
      profile: 2,
      'A-20': { 'undeclared-method': { status: 404, code: 'x', allow: false, operations: { getJob: { status: 405, code: 'y' } } } },
    }),
  ).toEqual(['A-20.undeclared-method: a 405 must carry an Allow header (RFC 9110 §15.5.6): set allow: true']);
});

it('refuses parts in a format 1 file, pointing at profile --upgrade', () => {
  expect(
    problems({ profile: 1, 'A-16': { 'missing-key': { status: 400, code: 'x', conditions: { required: { status: 400, code: 'y' } } } } }),
  ).toEqual([
    'A-16.missing-key: answers per operation or condition are profile format 2: set profile: 2 (profile --upgrade FILE rewrites a format 1 file)',
  ]);
});

const baseUrl = 'http://parts.test';
const mock = setupMockService({
  baseUrl,
  profile: {
    profile: 2,
    'A-16': { 'missing-key': { status: 400, code: 'key_invalid', conditions: { required: { status: 400, code: 'key_missing' } } } },
    'A-2': { 'over-maximum': { status: 413, code: 'value_too_large', operations: { verifyReport: { status: 400, code: 'too_long' } } } },
    'A-20': {
      'unknown-route': { status: 404, code: 'no_route', conditions: { 'empty-path-parameter': { status: 400, code: 'job_id_empty' } } },
    },
  },
});
const plainMock = setupMockService({ baseUrl: 'http://plain.test' });

beforeAll(() => mock.server.listen({ onUnhandledRequest: 'error' }));
afterAll(() => mock.server.close());

/** Status and code of each request whose answer a part decides, from `base`. */
async function answers(base: string): Promise<string[]> {
  const json = { 'content-type': 'application/json' };
  const body = JSON.stringify(evaluationRequest());
  const requests: [string, RequestInit][] = [
    ['/v0/evaluations', { method: 'POST', headers: json, body }],
    ['/v0/evaluations', { method: 'POST', headers: { ...json, 'idempotency-key': '' }, body }],
    [
      '/v0/evaluations',
      {
        method: 'POST',
        headers: { ...json, 'idempotency-key': 'k' },
        body: JSON.stringify(evaluationRequest({ operationId: 'x'.repeat(129) })),
      },
    ],
    [
      '/v0/verifications',
      { method: 'POST', headers: json, body: JSON.stringify({ artifact: 'a', expectedOperationId: 'x'.repeat(129), expectedIssuer: 'i' }) },
    ],
    ['/v0/jobs/', {}],
    ['/v1/nothing', {}],
  ];
  const seen: string[] = [];
  for (const [path, init] of requests) {
    const response = await fetch(`${base}${path}`, init);
    seen.push(`${response.status} ${((await response.json()) as { code: string }).code}`);
  }
  return seen;
}

it('serves each part from the MSW handlers, and the default profile answers as before', async () => {
  expect(await answers(baseUrl)).toEqual([
    '400 key_missing',
    '400 key_invalid',
    '413 value_too_large',
    '400 too_long',
    '400 job_id_empty',
    '404 no_route',
  ]);
  mock.server.close();
  plainMock.server.listen({ onUnhandledRequest: 'error' });
  try {
    expect(await answers('http://plain.test')).toEqual([
      '400 missing_idempotency_key',
      '400 missing_idempotency_key',
      '413 limit_exceeded',
      '400 limit_exceeded',
      '404 route_not_found',
      '404 route_not_found',
    ]);
  } finally {
    plainMock.server.close();
    mock.server.listen({ onUnhandledRequest: 'error' });
  }
});
