/**
 * The profile file as written: a left-out entry's explanation whole, wrapped as comments;
 * entries in the register's order (A-3 before A-23); a `$schema` path that is right from the
 * file's own folder; and a `--profile` failure that states its own operation's expectation.
 */
import { expect, it } from 'vitest';
import { parse } from 'yaml';
import { profileSchemaReference } from '../../src/cli/profile-schema-ref.js';
import type { Exchange } from '../../src/conformance/exchange.js';
import { checksWithProfile } from '../../src/conformance/profile/profile-checks.js';
import { defaultEntries, resolveProfile } from '../../src/profile/profile.js';
import { profileYaml } from '../../src/profile/write.js';

it('writes a left-out entry’s explanation whole, as comment lines of about 100 characters', () => {
  const explanation = `A-16.missing-key left out: answered 2 ways: ${'{"status":400,"code":"key_missing"} ×3 (POST /v0/evaluations, no Idempotency-Key → 400 key_missing); '.repeat(4)}end-of-explanation`;
  const text = profileYaml({ entries: {}, footer: [explanation, `x${'y'.repeat(250)}z`] });
  const comments = text.split('\n').filter((line) => line.startsWith('#') && !line.includes('$schema'));
  for (const line of comments) expect(line.length).toBeLessThanOrEqual(104);
  const rejoined = comments.map((line) => line.replace(/^# {1,3}/, '')).join(' ');
  expect(rejoined).toContain(explanation);
  // A word longer than a line is broken, never cut: all 252 characters are there.
  expect(comments.map((line) => line.replace(/^# {1,3}/, '')).join('')).toContain(`x${'y'.repeat(250)}z`);
  expect(parse(text)).toEqual({ profile: 2 });
});

it('writes what was seen of an entry whole, wrapped under the entry, and the file still reads as the entry', () => {
  const seen = `media-type judged before body-too-large, malformed-json, not-an-object, missing-key, over-maximum, invalid-request (e.g. POST /v0/evaluations, media-type and body-too-large → 415 unsupported_media_type)`;
  const text = profileYaml({ entries: { 'A-21.media-type': { status: 415, code: 'x' } }, comments: { 'A-21.media-type': [seen] } });
  const lines = text.split('\n').filter((line) => line.startsWith('  #'));
  expect(lines.length).toBeGreaterThan(1);
  for (const line of lines) expect(line.length).toBeLessThanOrEqual(106);
  expect(lines.map((line) => line.replace(/^ {2}# {1,3}/, '')).join(' ')).toBe(seen);
  expect(parse(text)).toEqual({ profile: 2, 'A-21': { 'media-type': { status: 415, code: 'x' } } });
});

it('orders entries by the register’s number: A-3 before A-23', () => {
  const text = profileYaml({ entries: defaultEntries });
  const groups = [...text.matchAll(/^(A-\d+):$/gm)].map((match) => Number(match[1]!.slice(2)));
  expect(groups).toEqual([...groups].sort((a, b) => a - b));
  expect(text.indexOf('\nA-3:')).toBeLessThan(text.indexOf('\nA-23:'));
});

it('points $schema at the installed package from the file’s own folder, and by file URL outside the project', () => {
  const installed = '/work/app/node_modules/evidence-harness';
  expect(profileSchemaReference('/work/app/profile.yaml', installed)).toBe('./node_modules/evidence-harness/profile.schema.json');
  expect(profileSchemaReference('/work/app/profiles/staging/p.yaml', installed)).toBe(
    '../../node_modules/evidence-harness/profile.schema.json',
  );
  expect(profileSchemaReference('/work/app/x/../q.yaml', installed)).toBe('./node_modules/evidence-harness/profile.schema.json');
  expect(profileSchemaReference('/tmp/p.yaml', installed)).toBe('file:///work/app/node_modules/evidence-harness/profile.schema.json');
  expect(profileSchemaReference('/work/application/p.yaml', installed)).toMatch(/^file:\/\/\/work\/app\//);
  expect(profileSchemaReference('/srv/app/profiles/p.yaml', '/srv/app/node_modules/@acme/evidence-harness')).toBe(
    '../node_modules/@acme/evidence-harness/profile.schema.json',
  );
  // The package's own checkout is its project.
  expect(profileSchemaReference('/repo/test/p.yaml', '/repo')).toBe('../profile.schema.json');
  const text = profileYaml({ entries: {}, schema: '../node_modules/evidence-harness/profile.schema.json' });
  expect(text.split('\n')[0]).toBe('# yaml-language-server: $schema=../node_modules/evidence-harness/profile.schema.json');
});

function overMaximum(operationId: string, status: number, code: string): Exchange {
  const body = { code, message: 'm' };
  return {
    id: 1,
    operationId,
    caller: 1,
    intent: {
      kind: 'negative',
      location: 'body',
      pointer: '/evidence',
      constraint: 'maxItems',
      overMaximum: true,
      description: 'evidence over maxItems',
      expected: { status: 400, because: 'A-2' },
    },
    request: {
      method: 'POST',
      url: `http://server.test/v0/${operationId === 'verifyReport' ? 'verifications' : 'evaluations'}`,
      headers: {},
    },
    response: { status, headers: {}, contentType: 'application/json', bodyText: JSON.stringify(body), json: body },
    notes: [],
    rateLimited: false,
    durationMs: 1,
  } as Exchange;
}

it('states each failure’s own operation’s expectation: verifyReport’s over-maximum is 400 with the entry’s code', () => {
  const profile = resolveProfile({ profile: 1, 'A-2': { 'over-maximum': { status: 413, code: 'TOO_MANY' } } }, 'p.yaml');
  const check = checksWithProfile([], profile).find((item) => item.name === 'profile:A-2.over-maximum')!;
  const verify = check.judge(overMaximum('verifyReport', 400, 'OTHER'), {} as never) as { outcome: string; expected?: string };
  expect(verify.outcome).toBe('fail');
  expect(verify.expected).toBe(
    "A-2.over-maximum on verifyReport: {status: 400, code: TOO_MANY} (verifyReport has no 413: 400 with the entry's code) (the profile p.yaml)",
  );
  const create = check.judge(overMaximum('createEvaluation', 400, 'OTHER'), {} as never) as { outcome: string; expected?: string };
  expect(create.expected).toBe('A-2.over-maximum {status: 413, code: TOO_MANY} (the profile p.yaml)');
  expect((check.judge(overMaximum('verifyReport', 400, 'TOO_MANY'), {} as never) as { outcome: string }).outcome).toBe('pass');
});
