/**
 * `profile --upgrade FILE [--out FILE2]` (issue 41): a format 1 file becomes format 2 with its
 * entries and comments kept, in place or to another file; a format 2 file is left alone; a bad
 * file is one line on stderr and exit 2. Format 1 files still load as they are, and
 * `profile --init` documents every entry of the table.
 */
import { lstatSync, mkdtempSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { defaultProfileText } from '../../src/cli/profile-command.js';
import { entryNames } from '../../src/profile/entries.js';
import { readProfileFile } from '../../src/profile/load.js';
import { splitEntryName } from '../../src/profile/profile.js';
import { runMain } from '../support/run-main.js';

const folder = mkdtempSync(join(tmpdir(), 'eh-profile-upgrade-'));
let files = 0;
function file(text: string, extension = 'yaml'): string {
  files += 1;
  const path = join(folder, `p${files}.${extension}`);
  writeFileSync(path, text);
  return path;
}

const formatOne = [
  '# our staging server, learnt in March',
  'profile: 1',
  '',
  'A-21:',
  '  # what the server answers to text/plain',
  '  media-type: {status: 400, code: BAD_TYPE}',
  'A-16:',
  '  missing-key: {status: 400, code: key_missing} # checked by hand',
  '',
].join('\n');

it('still loads a format 1 file as it is', async () => {
  const profile = await readProfileFile(file(formatOne));
  expect(profile.format).toBe(1);
  expect(profile.entries['A-21.media-type']).toEqual({ status: 400, code: 'BAD_TYPE' });
});

it('upgrades a format 1 file in place: the version changes, every entry and comment is kept', async () => {
  const path = file(formatOne);
  const upgraded = await runMain('profile', '--upgrade', path);
  expect(upgraded.code, upgraded.stderr).toBe(0);
  expect(upgraded.stdout).toBe(`upgraded ${path} to profile format 2 in place\n`);
  expect(readFileSync(path, 'utf8')).toBe(formatOne.replace('profile: 1', 'profile: 2'));
  const profile = await readProfileFile(path);
  expect(profile.format).toBe(2);
  expect([...profile.declared].sort()).toEqual(['A-16.missing-key', 'A-21.media-type']);
});

it('writes the upgrade to --out, leaving the file as it was, and keeps an existing --out unless --force', async () => {
  const path = file(formatOne);
  const out = join(folder, 'upgraded.yaml');
  expect((await runMain('profile', '--upgrade', path, '--out', out)).code).toBe(0);
  expect(readFileSync(path, 'utf8')).toBe(formatOne);
  expect((await readProfileFile(out)).format).toBe(2);
  const again = await runMain('profile', '--upgrade', path, '--out', out);
  expect(again.code).toBe(2);
  expect(again.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(again.stderr).toContain('exists; give --force');
  expect((await runMain('profile', '--upgrade', path, '--out', out, '--force')).code).toBe(0);
});

it('upgrades a format 1 file that already uses format 2 answers per operation (what its refusal asks for)', async () => {
  const path = file('profile: 1\nA-2:\n  over-maximum: {status: 413, code: big, operations: {verifyReport: {status: 400, code: long}}}\n');
  await expect(readProfileFile(path)).rejects.toThrow(/set profile: 2 \(profile --upgrade FILE/);
  expect((await runMain('profile', '--upgrade', path)).code).toBe(0);
  expect((await readProfileFile(path)).entries['A-2.over-maximum'].operations).toEqual({ verifyReport: { status: 400, code: 'long' } });
});

it('keeps a JSON profile JSON', async () => {
  const path = file(JSON.stringify({ profile: 1, 'A-21': { 'media-type': { status: 400, code: 'BAD_TYPE' } } }), 'json');
  expect((await runMain('profile', '--upgrade', path)).code).toBe(0);
  expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ profile: 2, 'A-21': { 'media-type': { status: 400, code: 'BAD_TYPE' } } });
});

it('leaves a format 2 file alone, saying so in one line', async () => {
  const path = file(formatOne.replace('profile: 1', 'profile: 2'));
  const before = statSync(path).mtimeMs;
  const result = await runMain('profile', '--upgrade', path);
  expect(result.code).toBe(0);
  expect(result.stdout).toBe(`${path} is already profile format 2: left as it is\n`);
  expect(statSync(path).mtimeMs).toBe(before);
});

it.each([
  ['a YAML syntax error', 'profile: 1\nA-21: {media-type: [\n'],
  ['a refused entry', 'profile: 1\nA-21:\n  media-type: {status: 404, code: X}\n  malformed-json: {status: 500, code: Y}\n'],
  ['an unknown condition', 'profile: 1\nA-16:\n  missing-key: {status: 400, code: k, conditions: {absent: {status: 400, code: m}}}\n'],
])('refuses %s in one line, exit 2, the file untouched', async (_name, text) => {
  const path = file(text);
  const result = await runMain('profile', '--upgrade', path);
  expect(result.code).toBe(2);
  expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(result.stderr).toContain(`profile: --upgrade ${path}: not upgraded:`);
  expect(readFileSync(path, 'utf8')).toBe(text);
});

it('names the known conditions when a part names another', async () => {
  const path = file('profile: 2\nA-16:\n  missing-key: {status: 400, code: k, conditions: {absent: {status: 400, code: m}}}\n');
  const result = await runMain('profile', '--check', path);
  expect(result.code).toBe(2);
  expect(result.stderr).toContain("unknown condition 'absent'; known: required, minLength");
});

it('documents every entry of the table in profile --init, with the conditions it may answer apart', () => {
  const text = defaultProfileText();
  for (const name of entryNames) {
    const [group, entry] = splitEntryName(name);
    expect(text).toMatch(new RegExp(`\\n${group}:\\n(?:  .*\\n)*  ${entry}: `));
  }
  expect(text).toContain('Conditions it may answer apart (format 2): required, minLength.');
});

it('refuses to upgrade through a symbolic link in place, leaving the link and its target as they were', async () => {
  const target = file(formatOne);
  const link = join(folder, 'link.yaml');
  symlinkSync(target, link);
  const result = await runMain('profile', '--upgrade', link);
  expect(result.code).toBe(2);
  expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(lstatSync(link).isSymbolicLink()).toBe(true);
  expect(readFileSync(target, 'utf8')).toBe(formatOne);
});
