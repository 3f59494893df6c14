/**
 * What a profile may hold is what the mock can bear (issue 40, docs/reliability.md "Profiles"):
 * whatever a hostile server answers, `--write-profile` writes a file `profile --check` accepts
 * (the learner leaves out an entry over a bound, saying why), never a credential or a part of
 * one, and the schema the learner, `profile --check` and `mock --profile` share refuses a body
 * limit over the mock's hard cap.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { callerOf, schemeOf, writeLearntProfile } from '../../src/cli/write-profile.js';
import type { Exchange, Intent } from '../../src/conformance/exchange.js';
import type { ConformanceReport } from '../../src/conformance/index.js';
import { ProfileLearner } from '../../src/conformance/profile/learn.js';
import { bodyLimits } from '../../src/contract/limits.js';
import { scrubberFor } from '../../src/contract/secrets.js';
import { createMockEngine } from '../../src/engine/index.js';
import { ProfileFileError, readProfileFile } from '../../src/profile/load.js';
import { ProfileError, resolveProfile } from '../../src/profile/profile.js';
import { runMain } from '../support/run-main.js';

const folder = mkdtempSync(join(tmpdir(), 'eh-hostile-learning-'));
let id = 0;

function exchange(options: { intent: Intent; status: number; body?: unknown; bodyText?: string; path?: string }): Exchange {
  id += 1;
  const bodyText = options.bodyText ?? (options.body === undefined ? '' : JSON.stringify(options.body));
  return {
    id,
    operationId: options.path === '/health' ? 'health' : 'createEvaluation',
    caller: 1,
    intent: options.intent,
    request: {
      method: options.path === '/health' ? 'GET' : 'POST',
      url: `http://server.test${options.path ?? '/v0/evaluations'}`,
      headers: {},
    },
    response: { status: options.status, headers: {}, contentType: 'application/json', bodyText, json: options.body },
    notes: [],
    rateLimited: false,
    durationMs: 1,
  };
}

const health = (body: unknown) => exchange({ intent: { kind: 'preflight' }, status: 200, body, path: '/health' });
const malformed = (code: string) =>
  exchange({ intent: { kind: 'malformed-json', expected: { status: 400, because: 'A-21' } }, status: 400, body: { code, message: 'no' } });

function nested(depth: number): unknown {
  let value: unknown = 'bottom';
  for (let level = 0; level < depth; level += 1) value = { inner: value };
  return value;
}

const report = { target: 'http://server.test', seed: 1, runId: 'r1' } as unknown as ConformanceReport;

/** Learns from `exchanges`, writes the profile through the command's writer, and reads it back as `profile --check` does. */
async function learnWriteRead(options: { exchanges: readonly Exchange[]; secrets?: readonly string[]; name?: string }) {
  const learner = new ProfileLearner();
  for (const item of options.exchanges) learner.record(item);
  id += 1;
  const file = join(folder, options.name ?? `learnt-${id}.yaml`);
  let stderr = '';
  const scrubber = scrubberFor({ headerValues: [...(options.secrets ?? [])] });
  await writeLearntProfile({
    learner,
    file,
    caller: undefined,
    io: { stdout: () => undefined, stderr: (text) => (stderr += text) },
    report,
    scrub: (text) => scrubber.scrub(text),
  });
  const text = readFileSync(file, 'utf8');
  const profile = await readProfileFile(file);
  return { text, profile, stderr, file };
}

it.each([
  ['a health body nested 20 deep', () => [health({ deep: nested(20) })], /A-9\.health not learnt: .*nested more than 16 levels deep/],
  [
    'a health body with a 200-character key',
    () => [health({ ['k'.repeat(200)]: 1 })],
    /A-9\.health not learnt: .*body\.k{39}…: a key is over 128 characters/,
  ],
  ['a 301 kB health body', () => [health({ text: 'x'.repeat(301_000) })], /A-9\.health not learnt: .*301000 characters; at most 2048/],
  [
    'a health body of 12,000 values',
    () => [health({ values: Array.from({ length: 12_000 }, (_, index) => index) })],
    /A-9\.health not learnt: .*more than 10000 values/,
  ],
  ['a health body nested 10 deep', () => [health({ deep: nested(10) })], /A-9\.health not learnt: .*nests deeper than 8 levels/],
  [
    'a health body of 2,000 values',
    () => [health({ values: Array.from({ length: 2000 }, (_, index) => index) })],
    /A-9\.health not learnt: .*2000 items; at most 256/,
  ],
  [
    'a code holding a control character',
    () => [malformed('bad\u0007code')],
    /A-21\.malformed-json not learnt: .*control or other unprintable character/,
  ],
  ['a code holding a line break', () => [malformed('bad\ncode: injected')], /A-21\.malformed-json not learnt/],
  ['a code of 200 characters', () => [malformed('c'.repeat(200))], /A-21\.malformed-json not learnt: .*80/],
  ['a code holding a bidi override', () => [malformed('ok\u202Eevil')], /A-21\.malformed-json not learnt/],
])('leaves out %s with a reason, and writes a file profile --check accepts', async (_name, exchanges, reason) => {
  const { text, profile, stderr, file } = await learnWriteRead({ exchanges: exchanges() });
  // A reason is written whole, wrapped over comment lines: read as one.
  expect(text.replace(/\n# {3}/g, ' ')).toMatch(reason);
  expect(stderr).toMatch(reason);
  // Nothing else is declared but what every Error answer shows: the headers errors carry (A-7.error-headers).
  expect([...profile.declared].filter((entry) => entry !== 'A-7.error-headers')).toEqual([]);
  const checked = await runMain('profile', '--check', file);
  expect(checked.code, checked.stderr).toBe(0);
});

it('learns a health body within the bounds, and an answer echoing a credential is not learnt and never written', async () => {
  const secret = 'sk_live_abcdef123456';
  const { text, profile } = await learnWriteRead({
    exchanges: [health({ status: 'ok', 'line\nbreak': 'tab\there \u007F \u0085 \u2028 \uFFFE' }), malformed(`echo-${secret}`)],
    secrets: [`Bearer ${secret}`],
  });
  expect(profile.declared.has('A-9.health')).toBe(true);
  expect(profile.entries['A-9.health'].body).toEqual({ status: 'ok', 'line\nbreak': 'tab\there \u007F \u0085 \u2028 \uFFFE' });
  expect(text.replace(/\n# {3}/g, ' ')).toMatch(/A-21\.malformed-json not learnt: the answer holds a credential of the run/);
  expect(text).not.toContain(secret);
});

it('writes a file profile --check accepts whatever the health body and the codes (seeded property)', async () => {
  // Any JSON, any text: control characters, lone surrogates, noncharacters, deep and wide values.
  const text = fc.string({ unit: 'binary', maxLength: 100 });
  const json = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      text,
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.array(tie('value'), { maxLength: 6 }),
      fc.dictionary(text, tie('value'), { maxKeys: 6 }),
    ),
  })).value;
  await fc.assert(
    fc.asyncProperty(
      fc.dictionary(text, json, { maxKeys: 8 }),
      fc.array(text, { minLength: 1, maxLength: 3 }),
      fc.nat({ max: 24 }),
      async (body, codes, depth) => {
        const exchanges = [health({ ...body, deep: nested(depth) }), ...codes.map((code) => malformed(code))];
        const learnt = await learnWriteRead({ exchanges, name: 'property.yaml' });
        // One code seen is learnt exactly as sent, or left out with a reason; never changed.
        const declared = learnt.profile.declared.has('A-21.malformed-json');
        if (declared) expect(learnt.profile.entries['A-21.malformed-json'].code).toBe(codes[0]);
      },
    ),
    { seed: 40, numRuns: 150 },
  );
}, 120_000);

it('records a registered authentication scheme in the registry’s spelling, anything else as custom, never a part of the value', () => {
  expect(schemeOf('sk_live_abc v2')).toBe('custom');
  expect(schemeOf('bearer abc')).toBe('Bearer');
  expect(schemeOf('DPOP abc')).toBe('DPoP');
  expect(schemeOf('scram-sha-256 abc')).toBe('SCRAM-SHA-256');
  expect(schemeOf('VAPID t=1')).toBe('vapid');
  expect(schemeOf('Token abc')).toBe('custom');
  expect(schemeOf('sk_live_abc')).toBe('any');
  expect(callerOf({ Authorization: 'sk_live_abc v2' }, { Authorization: 'sk_live_def v2' })).toEqual({
    header: 'Authorization',
    scheme: 'custom',
  });
  expect(callerOf({ Authorization: 'Bearer a' }, { authorization: 'bearer b' })).toEqual({ header: 'Authorization', scheme: 'Bearer' });
  expect(callerOf({ Authorization: 'Bearer a' }, { Authorization: 'Basic b' })).toEqual({ header: 'Authorization', scheme: 'any' });
});

it('writes `scheme: custom` for Authorization: sk_live_… v2, never the credential’s first word', async () => {
  const learner = new ProfileLearner();
  learner.record(
    exchange({
      intent: { kind: 'without-credentials', description: 'none', removed: ['Authorization'], answer: { status: 404, bodyDigest: 'x' } },
      status: 404,
      body: { code: 'job_not_found', message: 'no' },
      path: '/v0/jobs/x',
    }),
  );
  const file = join(folder, 'caller.yaml');
  const headers = { Authorization: 'sk_live_abc123secret v2' };
  const scrubber = scrubberFor({ headers });
  await writeLearntProfile({
    learner,
    file,
    caller: callerOf(headers, {}),
    io: { stdout: () => undefined, stderr: () => undefined },
    report,
    scrub: (text) => scrubber.scrub(text),
  });
  const text = readFileSync(file, 'utf8');
  expect(text).toContain('caller: {header: Authorization, scheme: custom}');
  expect(text).not.toContain('sk_live');
  expect((await readProfileFile(file)).entries['A-10.caller']).toEqual({ header: 'Authorization', scheme: 'custom' });
});

it('serves a custom scheme: any first word then a credential names the caller', async () => {
  const engine = createMockEngine({ profile: { profile: 1, 'A-10': { caller: { header: 'Authorization', scheme: 'custom' } } } });
  const answer = await engine.handle(new Request('http://mock.test/v0/jobs/nope', { headers: { authorization: 'sk_live_abc v2' } }));
  expect(answer.status).toBe(404);
});

it('refuses limitBytes over the mock’s hard cap in profile --check, mock --profile and the engine, naming the entry and the maximum', async () => {
  const file = join(folder, 'huge-limit.yaml');
  writeFileSync(file, 'profile: 1\nA-13:\n  body-too-large: {status: 413, code: too_big, limitBytes: 9007199254740991}\n');
  const said = new RegExp(
    `huge-limit\\.yaml:3: A-13\\.body-too-large: limitBytes: limitBytes 9007199254740991 is over the largest body the mock reads: at most ${bodyLimits.maxDocumentBodyBytes} bytes`,
  );
  const checked = await runMain('profile', '--check', file);
  expect(checked.code).toBe(2);
  expect(checked.stderr).toMatch(said);
  const mock = await runMain('mock', '--port', '0', '--profile', file);
  expect(mock.code).toBe(2);
  expect(mock.stderr).toMatch(said);
  await expect(readProfileFile(file)).rejects.toBeInstanceOf(ProfileFileError);
  expect(() =>
    resolveProfile({
      profile: 1,
      'A-13': { 'body-too-large': { status: 413, code: 'x', limitBytes: bodyLimits.maxDocumentBodyBytes + 1 } },
    }),
  ).toThrow(ProfileError);
  // The cap itself is allowed.
  expect(
    resolveProfile({ profile: 1, 'A-13': { 'body-too-large': { status: 413, code: 'x', limitBytes: bodyLimits.maxDocumentBodyBytes } } })
      .entries['A-13.body-too-large'].limitBytes,
  ).toBe(bodyLimits.maxDocumentBodyBytes);
});

it('refuses a profile object too deep for the schema’s walk before it walks it (the engine’s inline profile)', () => {
  expect(() => resolveProfile({ profile: 1, 'A-9': { health: { body: { deep: nested(100_000) } } } })).toThrow(
    /nested more than 16 levels deep/,
  );
});
