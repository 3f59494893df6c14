/**
 * The profile document (A-50): the default written and read back, the published JSON Schema,
 * refusals of entries that break a rule of the contract, and hostile files refused with the
 * file, the line and the entry named.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { largestValue } from '../../src/conformance/generators/largest-value.js';
import { loadContract } from '../../src/openapi/document.js';
import { createSchemaValidator } from '../../src/openapi/schema-validator.js';
import { entryNames } from '../../src/profile/entries.js';
import { ProfileFileError, readProfileFile } from '../../src/profile/load.js';
import { defaultEntries, largestValidCreateBytes, ProfileError, profileJsonSchema, resolveProfile } from '../../src/profile/profile.js';
import { writeGeneratedJson } from '../support/generated-json.js';
import { runMain } from '../support/run-main.js';

const folder = mkdtempSync(join(tmpdir(), 'eh-profile-'));
function file(name: string, text: string): string {
  const path = join(folder, name);
  writeFileSync(path, text);
  return path;
}

it('writes the default profile with --init, and reads it back as exactly the defaults', async () => {
  const init = await runMain('profile', '--init');
  expect(init.code).toBe(0);
  for (const name of entryNames) expect(init.stdout).toContain(`${name.split('.')[1]}:`);
  const profile = await readProfileFile(file('default.yaml', init.stdout));
  expect(profile.entries).toEqual(defaultEntries);
  expect(profile.declared.size).toBe(entryNames.length);
  expect(profile.isDefault).toBe(true);
  const checked = await runMain('profile', '--check', join(folder, 'default.yaml'));
  expect(checked.code).toBe(0);
  expect(checked.stdout).toContain(`declaring ${entryNames.length} of ${entryNames.length} entries`);
});

it('writes --out once and keeps an existing file unless --force', async () => {
  const out = join(folder, 'out.yaml');
  expect((await runMain('profile', '--init', '--out', out)).code).toBe(0);
  const again = await runMain('profile', '--init', '--out', out);
  expect(again.code).toBe(2);
  expect(again.stderr).toContain('exists; give --force');
  expect((await runMain('profile', '--init', '--out', out, '--force')).code).toBe(0);
});

it('publishes profile.schema.json from the profile’s own schema (UPDATE_PROFILE_SCHEMA=1 rewrites it), and the default validates against it', async () => {
  const path = join(process.cwd(), 'profile.schema.json');
  if (process.env.UPDATE_PROFILE_SCHEMA === '1') writeGeneratedJson(path, profileJsonSchema());
  const published = JSON.parse(readFileSync(path, 'utf8'));
  expect(published).toEqual(profileJsonSchema());
  const validate = createSchemaValidator().compile(published);
  const document: Record<string, Record<string, unknown>> = {};
  for (const [name, value] of Object.entries(defaultEntries)) {
    const [group, entry] = name.split('.') as [string, string];
    document[group] = { ...document[group], [entry]: value };
  }
  expect(validate({ profile: 1, ...document }), JSON.stringify(validate.errors)).toBe(true);
  expect(validate({ profile: 1, 'A-21': { 'malformed-json': { status: 400 } } })).toBe(false);
});

it('measures the largest valid createEvaluation body the body limit may not go below', async () => {
  const contract = await loadContract({});
  const create = contract.operations.find((operation) => operation.operationId === 'createEvaluation')!;
  const bytes = Buffer.byteLength(JSON.stringify(largestValue(create.requestBody!.content['application/json']!)));
  expect(largestValidCreateBytes).toBeGreaterThanOrEqual(bytes);
});

it('refuses entries that would break a rule of the contract, naming the entry and the rule', () => {
  const refused = (document: unknown) => {
    try {
      resolveProfile(document, 'p.yaml');
    } catch (error) {
      expect(error).toBeInstanceOf(ProfileError);
      return (error as ProfileError).message;
    }
    throw new Error('accepted');
  };
  expect(refused({ profile: 1, 'A-21': { 'malformed-json': { status: 415, code: 'x' } } })).toMatch(
    /A-21\.malformed-json: status 415 breaks a rule the contract states: .*400/,
  );
  expect(refused({ profile: 1, 'A-13': { 'body-too-large': { status: 413, code: 'x', limitBytes: 1_048_576 } } })).toMatch(
    /A-13\.body-too-large: limitBytes 1048576 would refuse a valid request/,
  );
  expect(refused({ profile: 1, 'A-10': { 'unknown-job': { status: 400, code: 'x' } } })).toMatch(/A-10\.unknown-job: status 400/);
  expect(refused({ profile: 1, 'A-20': { 'undeclared-method': { status: 405, code: 'x', allow: false } } })).toMatch(/Allow/);
  expect(refused({ profile: 1, 'A-3': { timeline: { first: 'RUNNING', through: ['RUNNING', 'QUEUED', 'COMPLETE'] } } })).toMatch(
    /RUNNING → QUEUED moves backwards/,
  );
  expect(refused({ profile: 1, 'A-21': { 'malformed-json': { status: 400, code: 'x'.repeat(81) } } })).toMatch(/A-21\.malformed-json/);
  expect(refused({ profile: 3 })).toMatch(/profile/);
});

it('refuses hostile profile files, naming the file, the line and the entry', async () => {
  const attempt = async (name: string, text: string) => {
    const path = file(name, text);
    try {
      await readProfileFile(path);
    } catch (error) {
      expect(error).toBeInstanceOf(ProfileFileError);
      return (error as Error).message;
    }
    throw new Error(`${name} accepted`);
  };
  // Unknown entries and __proto__: each named, with its line.
  const unknown = await attempt(
    'unknown.yaml',
    'profile: 1\nA-21:\n  malformed-json: {status: 400, code: bad}\n  mystery: {status: 400}\n',
  );
  expect(unknown).toMatch(/unknown\.yaml:4: A-21\.mystery: unknown entry/);
  const proto = await attempt('proto.yaml', 'profile: 1\n__proto__:\n  polluted: true\n');
  expect(proto).toMatch(/proto\.yaml:2: __proto__: the key '__proto__' is refused/);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  const protoJson = await attempt('proto.json', '{"profile": 1, "A-21": {"__proto__": {"status": 400}}}');
  expect(protoJson).toMatch(/proto\.json:1: A-21\.__proto__: the key '__proto__' is refused/);
  // Inside a health body too: a parser keeps `__proto__` as an own key, and the schema read it as {} without a word.
  for (const key of ['__proto__', 'constructor', 'prototype']) {
    const inBody = await attempt(`body-${key}.yaml`, `profile: 1\nA-9:\n  health:\n    body:\n      ok: true\n      ${key}: {x: 1}\n`);
    expect(inBody).toMatch(
      new RegExp(`body-${key}\\.yaml:6: A-9\\.health: body\\.${key}: the key '${key}' is refused \\(.*\\); rename it$`),
    );
    expect(inBody.split('\n')).toHaveLength(2);
  }
  // A rule broken: the entry, the line and the rule.
  const rule = await attempt('rule.yaml', 'profile: 1\nA-16:\n  conflict: {status: 422, code: DUP}\n');
  expect(rule).toMatch(/rule\.yaml:3: A-16\.conflict: status 422 breaks a rule the contract states/);
  // Aliases that multiply (billion laughs), depth, size.
  const laughs = ['profile: 1', 'a: &a ["x","x","x","x","x","x","x","x","x","x"]'];
  for (let level = 0; level < 8; level += 1)
    laughs.push(
      `${String.fromCharCode(98 + level)}: &${String.fromCharCode(98 + level)} [${Array(10)
        .fill(`*${String.fromCharCode(97 + level)}`)
        .join(',')}]`,
    );
  expect(await attempt('laughs.yaml', laughs.join('\n'))).toMatch(/laughs\.yaml: .*(alias|Alias)/);
  expect(await attempt('deep.json', `{"profile":1,"A-9":{"health":{"body":{"a":${'['.repeat(40)}${']'.repeat(40)}}}}}`)).toMatch(
    /deep\.json: refused: it is nested more than 16 levels deep/,
  );
  expect(await attempt('huge.yaml', `profile: 1\n# ${'x'.repeat(300 * 1024)}\n`)).toMatch(
    /huge\.yaml.*files of at most 262144 bytes are read/,
  );
  expect(await attempt('syntax.yaml', 'profile: 1\nA-21: {\n')).toMatch(/syntax\.yaml: .*line \d+/);
});
