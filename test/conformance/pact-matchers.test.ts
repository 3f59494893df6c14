/**
 * Pact's matchers, each shown passing and failing on a body (or a header, a status), with the
 * path a failure names: what `pact_interaction_matches` decides about an answer.
 */
import { describe, expect, it } from 'vitest';
import { matchJsonBody, matchValue } from '../../src/conformance/pact/body-matching.js';
import { compileDateFormat } from '../../src/conformance/pact/date-formats.js';
import { applyBodyGenerators, readGenerators } from '../../src/conformance/pact/generators.js';
import { parsePathExpression, pathWeight } from '../../src/conformance/pact/path-expression.js';
import { matchResponse } from '../../src/conformance/pact/response-matching.js';
import { PatternCache, type RuleCategory, readCategory, readContext, readRuleList } from '../../src/conformance/pact/rules.js';

const patterns = new PatternCache();
const category = (raw: Record<string, unknown>): Promise<RuleCategory> => readCategory(raw, 'test', readContext(patterns));
const list = (...matchers: Record<string, unknown>[]) => ({ combine: 'AND', matchers });

/** The mismatch paths of `actual` against `expected` under `rules`. */
async function paths(rules: Record<string, unknown>, expected: unknown, actual: unknown, contentType?: string): Promise<string[]> {
  return matchJsonBody({ expected, actual, rules: await category(rules), contentType: contentType ?? 'application/json' }).map(
    (mismatch) => mismatch.path,
  );
}

describe('each matcher passes and fails', () => {
  const cases: {
    name: string;
    rule: Record<string, unknown>;
    expected: unknown;
    passes: unknown;
    fails: unknown;
  }[] = [
    { name: 'type', rule: { match: 'type' }, expected: 1, passes: 99, fails: '99' },
    {
      name: 'regex, anchored',
      rule: { match: 'regex', regex: '^job-[0-9a-z]+$' },
      expected: 'job-1',
      passes: 'job-7f3c',
      fails: 'job_7f3c',
    },
    // Pact's cores accept an escaped punctuation character that JavaScript's u mode refuses.
    {
      name: 'regex with Rust-style escapes',
      rule: { match: 'regex', regex: '^job\\-\\d+\\@x$' },
      expected: 'job-1@x',
      passes: 'job-12@x',
      fails: 'job_12@x',
    },
    // pact-reference's is_match finds the pattern anywhere: an unanchored pattern is lenient.
    {
      name: 'regex, found anywhere',
      rule: { match: 'regex', regex: 'job-\\d' },
      expected: 'job-1',
      passes: 'my job-7 here',
      fails: 'job-x',
    },
    { name: 'equality', rule: { match: 'equality' }, expected: 'QUEUED', passes: 'QUEUED', fails: 'RUNNING' },
    { name: 'include', rule: { match: 'include', value: 'proof' }, expected: 'a proof', passes: 'no proof here', fails: 'nothing' },
    { name: 'integer', rule: { match: 'integer' }, expected: 1, passes: -42, fails: 4.2 },
    { name: 'decimal', rule: { match: 'decimal' }, expected: 1.5, passes: 0.25, fails: '0.25' },
    { name: 'number', rule: { match: 'number' }, expected: 1, passes: 1e3, fails: '1000' },
    { name: 'boolean', rule: { match: 'boolean' }, expected: true, passes: false, fails: 'false' },
    { name: 'null', rule: { match: 'null' }, expected: null, passes: null, fails: 0 },
    {
      name: 'date with a format',
      rule: { match: 'date', format: 'yyyy-MM-dd' },
      expected: '2026-01-01',
      passes: '2026-11-26',
      fails: '2026-13-01',
    },
    {
      name: 'date (V3 key)',
      rule: { match: 'date', date: 'dd/MM/yyyy' },
      expected: '01/01/2026',
      passes: '26/11/2026',
      fails: '2026-11-26',
    },
    { name: 'time', rule: { match: 'time', format: 'HH:mm:ss' }, expected: '10:00:00', passes: '23:59:59', fails: '24:00:00' },
    {
      name: 'timestamp with a format',
      rule: { match: 'timestamp', format: "yyyy-MM-dd'T'HH:mm:ss.SSSXXX" },
      expected: '2026-01-01T00:00:00.000Z',
      passes: '2026-11-26T01:02:03.456+01:00',
      fails: '2026-11-26 01:02:03',
    },
    {
      name: 'timestamp, ISO 8601 by default',
      rule: { match: 'timestamp' },
      expected: '2026-01-01T00:00:00Z',
      passes: '2026-11-26T01:02:03.4+01:00',
      fails: 'yesterday',
    },
    { name: 'notEmpty', rule: { match: 'notEmpty' }, expected: 'x', passes: 'y', fails: '' },
    { name: 'semver', rule: { match: 'semver' }, expected: '1.0.0', passes: '2.10.3-rc.1+build.5', fails: '1.2' },
    { name: 'min (V4 type with min)', rule: { match: 'type', min: 2 }, expected: ['a'], passes: ['a', 'b', 'c'], fails: ['a'] },
    { name: 'max', rule: { match: 'type', max: 2 }, expected: ['a'], passes: ['a', 'b'], fails: ['a', 'b', 'c'] },
    { name: 'minType', rule: { match: 'minType', min: 1 }, expected: ['a'], passes: ['z'], fails: [] },
    { name: 'maxType', rule: { match: 'maxType', max: 1 }, expected: ['a'], passes: [], fails: ['a', 'b'] },
    { name: 'values', rule: { match: 'values' }, expected: { a: 'x' }, passes: { z: 'x', y: 'x' }, fails: { z: 'y' } },
    {
      name: 'eachKey',
      rule: { match: 'eachKey', rules: [{ match: 'regex', regex: '^ev-\\d+$' }] },
      expected: { 'ev-1': 1 },
      passes: { 'ev-2': 1, 'ev-30': 1 },
      fails: { 'ev-2': 1, other: 1 },
    },
    {
      name: 'eachValue',
      rule: { match: 'eachValue', rules: [{ match: 'type' }] },
      expected: { a: 'x' },
      passes: { b: 'y', c: 'z' },
      fails: { b: 'y', c: 1 },
    },
  ];
  for (const testCase of cases) {
    it(testCase.name, async () => {
      const rules = { '$.value': list(testCase.rule) };
      expect(await paths(rules, { value: testCase.expected }, { value: testCase.passes })).toEqual([]);
      const failed = await paths(rules, { value: testCase.expected }, { value: testCase.fails });
      expect(failed.length).toBeGreaterThan(0);
      expect(failed[0]).toMatch(/^\$\.value/);
    });
  }

  it('arrayContains: each variant matches some item, by its own rules', async () => {
    const rules = {
      '$.evidence': list({
        match: 'arrayContains',
        variants: [
          { index: 0, rules: { '$.kind': list({ match: 'regex', regex: '^issuer_' }) } },
          { index: 1, rules: { '$.network': list({ match: 'type' }) } },
        ],
      }),
    };
    const expected = { evidence: [{ kind: 'issuer_assertion' }, { kind: 'rpc_observation', network: 'mainnet' }] };
    expect(
      await paths(rules, expected, {
        evidence: [{ kind: 'other' }, { kind: 'rpc_observation', network: 'testnet' }, { kind: 'issuer_x' }],
      }),
    ).toEqual([]);
    const missing = matchJsonBody({ expected, actual: { evidence: [{ kind: 'issuer_x' }] }, rules: await category(rules) });
    expect(missing).toEqual([expect.objectContaining({ path: '$.evidence', expected: expect.stringContaining('variant 2') })]);
  });

  it('contentType: the answer is of the media type', async () => {
    const rules = { $: list({ match: 'contentType', value: 'application/json' }) };
    expect(await paths(rules, {}, { a: 1 }, 'application/json; charset=utf-8')).toEqual([]);
    expect(await paths(rules, {}, { a: 1 }, 'text/plain')).toEqual(['$']);
  });

  it('statusCode: a class or a list', async () => {
    const success = await readRuleList(list({ match: 'statusCode', status: 'success' }), 'test', readContext(patterns));
    expect(matchValue({ rules: success, expected: 200, actual: 202, label: 'status', source: 'json' })).toBeUndefined();
    expect(matchValue({ rules: success, expected: 200, actual: 404, label: 'status', source: 'json' })).toMatchObject({
      path: 'status',
      expected: 'a status of the class success',
      received: '404',
    });
    const listed = await readRuleList(list({ match: 'statusCode', status: [200, 202] }), 'test', readContext(patterns));
    expect(matchValue({ rules: listed, expected: 200, actual: 202, label: 'status', source: 'json' })).toBeUndefined();
    expect(matchValue({ rules: listed, expected: 200, actual: 201, label: 'status', source: 'json' })).toBeDefined();
  });

  it('combine OR: one matcher holding is enough', async () => {
    const rules = { '$.value': { combine: 'OR', matchers: [{ match: 'regex', regex: '^job-' }, { match: 'integer' }] } };
    expect(await paths(rules, { value: 'job-1' }, { value: 'job-2' })).toEqual([]);
    expect(await paths(rules, { value: 'job-1' }, { value: 7 })).toEqual([]);
    expect(await paths(rules, { value: 'job-1' }, { value: 'task-2' })).toEqual(['$.value']);
  });

  it('combine AND: every matcher must hold', async () => {
    const rules = { '$.value': list({ match: 'type' }, { match: 'notEmpty' }) };
    expect(await paths(rules, { value: 'x' }, { value: 'y' })).toEqual([]);
    expect(await paths(rules, { value: 'x' }, { value: '' })).toEqual(['$.value']);
  });
});

describe('without rules, and rules cascading', () => {
  it('allows extra keys, but not a missing key, another value or another array length', async () => {
    expect(await paths({}, { a: 1 }, { a: 1, extra: true })).toEqual([]);
    expect(await paths({}, { a: 1, b: 2 }, { a: 1 })).toEqual(['$.b']);
    expect(await paths({}, { a: 'x' }, { a: 'y' })).toEqual(['$.a']);
    expect(await paths({}, { list: [1, 2] }, { list: [1, 2, 3] })).toEqual(['$.list']);
  });

  it('applies a rule below its path (type over a whole object), and equality resets it', async () => {
    const rules = { $: list({ match: 'type' }), '$.status': list({ match: 'equality' }) };
    const expected = { jobId: 'job-1', status: 'QUEUED', evidence: [{ id: 'ev-1' }] };
    expect(await paths(rules, expected, { jobId: 'job-9', status: 'QUEUED', evidence: [{ id: 'a' }, { id: 'b' }] })).toEqual([]);
    expect(await paths(rules, expected, { jobId: 'job-9', status: 'RUNNING', evidence: [] })).toEqual(['$.status']);
    expect(await paths(rules, expected, { jobId: 7, status: 'QUEUED', evidence: [] })).toEqual(['$.jobId']);
  });

  it("reads a rule on every child (P[*], P.*) as Pact's older wildcard form: items against a template", async () => {
    // As pact-specification's response cases "array with type matcher" and "additional property with type matcher".
    const items = { '$.myDates[*]': list({ match: 'type' }) };
    expect(await paths(items, { myDates: [10] }, { myDates: [20, 5, 1910] })).toEqual([]);
    expect(await paths(items, { myDates: [10] }, { myDates: [20, 5, '100299'] })).toEqual(['$.myDates[2]']);
    const properties = { '$.myPerson.*': list({ match: 'type' }) };
    expect(
      await paths(properties, { myPerson: { name: 'Any name', age: 10 } }, { myPerson: { name: 'Jon', age: 39, nationality: 'AU' } }),
    ).toEqual([]);
    expect(await paths(properties, { myPerson: { name: 'Any name' } }, { myPerson: { name: 'Jon', age: 39 } })).toEqual(['$.myPerson.age']);
  });

  it('shows a large received value by its start only', () => {
    const actual = { list: Array.from({ length: 50_000 }, (_, n) => ({ n })) };
    const [mismatch] = matchJsonBody({ expected: { list: 'x' }, actual, rules: { entries: [] } });
    expect(mismatch!.received.length).toBeLessThan(200);
    expect(mismatch!.received).toMatch(/^array \[\{"n":0\},\{"n":1\}.*…$/);
  });

  it('ranks the most specific expression first, as pact-reference does', () => {
    const weight = (source: string, path: (string | number)[]) => pathWeight(parsePathExpression(source) as never, path);
    const path = ['items', 0, 'id'];
    expect(weight('$.items[0].id', path)).toBeGreaterThan(weight('$.items[*].id', path));
    expect(weight('$.items[*].id', path)).toBeGreaterThan(weight('$.items', path));
    expect(weight("$['items'][*].*", path)).toBeGreaterThan(weight('$.*', path));
    expect(weight('$.other', path)).toBe(0);
    // `*` is any step, an array index too, as pact-reference reads its fragments as text.
    expect(weight('$.items.*.id', path)).toBeGreaterThan(0);
    expect(weight('$[*]', ['name'])).toBe(0);
  });
});

describe('headers, status and text bodies', () => {
  it('reads Content-Type by media type and named parameters, other headers as comma lists, names in any case', async () => {
    const expected = {
      status: 200,
      headers: [
        ['Content-Type', 'application/json'],
        ['Cache-Control', 'no-store, private'],
      ] as [string, string][],
      rules: { headers: new Map(), body: { entries: [] } },
    };
    const answer = (headers: Record<string, string>) => ({
      status: 200,
      headers,
      contentType: headers['content-type'] ?? null,
      bodyText: '',
      json: undefined,
    });
    expect(
      matchResponse(expected, answer({ 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store,private' })),
    ).toEqual([]);
    expect(matchResponse(expected, answer({ 'content-type': 'text/plain' })).map((mismatch) => mismatch.path)).toEqual([
      'header Content-Type',
      'header Cache-Control',
    ]);
  });

  it('compares a text body by its $ rule', async () => {
    const expected = {
      status: 200,
      headers: [],
      body: { kind: 'text' as const, text: 'ok' },
      rules: { headers: new Map(), body: await category({ $: list({ match: 'regex', regex: '^o' }) }) },
    };
    expect(matchResponse(expected, { status: 200, headers: {}, contentType: 'text/plain', bodyText: 'okay', json: undefined })).toEqual([]);
    expect(matchResponse(expected, { status: 200, headers: {}, contentType: 'text/plain', bodyText: 'no', json: undefined })).toHaveLength(
      1,
    );
  });
});

describe('date formats and generators', () => {
  it('refuses a letter it does not read, rather than guess', () => {
    expect(compileDateFormat('yyyy-MM-dd QQQ')).toMatch(/the letter 'Q'/);
    expect(compileDateFormat("yyyy-MM-dd'T'HH:mm:ss")).toMatchObject({ pattern: "yyyy-MM-dd'T'HH:mm:ss" });
  });

  it('fills a ProviderState expression from the state and keeps the example when the state gave nothing', () => {
    const generators = readGenerators(
      {
        body: {
          // biome-ignore lint/suspicious/noTemplateCurlyInString: Pact's own expression syntax
          '$.jobId': { type: 'ProviderState', expression: '${jobId}' },
          // biome-ignore lint/suspicious/noTemplateCurlyInString: Pact's own expression syntax
          '$.link': { type: 'ProviderState', expression: '/v0/jobs/${jobId}' },
        },
      },
      'test',
    );
    const notes: string[] = [];
    expect(
      applyBodyGenerators({ jobId: 'job-1', link: '/x' }, generators.body, { values: { jobId: 'job-42' }, mode: 'all', notes }),
    ).toEqual({
      jobId: 'job-42',
      link: '/v0/jobs/job-42',
    });
    expect(applyBodyGenerators({ jobId: 'job-1' }, generators.body, { values: {}, mode: 'all', notes })).toEqual({ jobId: 'job-1' });
    expect(notes.join()).toContain('the example value was kept');
  });

  it('makes random values for a request only, never for an expected response', () => {
    const generators = readGenerators({ body: { '$.id': { type: 'Uuid' }, '$.n': { type: 'RandomInt', min: 5, max: 5 } } }, 'test');
    const made = applyBodyGenerators({ id: 'x', n: 0 }, generators.body, { values: {}, mode: 'all', notes: [] }) as {
      id: string;
      n: number;
    };
    expect(made.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-/);
    expect(made.n).toBe(5);
    expect(applyBodyGenerators({ id: 'x', n: 0 }, generators.body, { values: {}, mode: 'provider-state', notes: [] })).toEqual({
      id: 'x',
      n: 0,
    });
  });
});
