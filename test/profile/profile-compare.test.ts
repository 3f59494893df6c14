/**
 * `profile --diff OLD NEW` and `profile --merge A B --out FILE`: what a CI job that
 * re-learns a profile reads, and how a learnt profile meets a hand-edited one.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { readProfileFile } from '../../src/profile/load.js';
import { runMain } from '../support/run-main.js';

const folder = mkdtempSync(join(tmpdir(), 'profile-compare-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const path = join(folder, name);
  writeFileSync(path, text);
  return path;
}

const serverA = file(
  'a.yaml',
  `profile: 2
A-16:
  missing-key: {status: 400, code: key_missing}
A-21:
  malformed-json: {status: 400, code: bad_json}
A-5:
  replay: {compare: raw-bytes}
`,
);
const serverB = file(
  'b.yaml',
  `profile: 2
A-16:
  missing-key: {code: key_missing, status: 400}
A-21:
  malformed-json: {status: 400, code: json_syntax}
A-20:
  unknown-route: {status: 400, code: no_route}
`,
);

it('finds no difference between a profile and itself, whatever the order of its keys, and exits 0', async () => {
  const same = await runMain('profile', '--diff', serverA, serverA);
  expect(same.code).toBe(0);
  expect(same.stdout).toContain('declare the same entries');
  const reordered = file(
    'a-reordered.yaml',
    readFileSync(serverA, 'utf8').replace('{status: 400, code: key_missing}', '{code: key_missing, status: 400}'),
  );
  expect((await runMain('profile', '--diff', serverA, reordered)).code).toBe(0);
});

it("lists every entry another server's profile decides differently, and exits 1", async () => {
  const diff = await runMain('profile', '--diff', serverA, serverB);
  expect(diff.code).toBe(1);
  expect(diff.stdout).toContain('3 entries differ');
  expect(diff.stdout).toContain('- A-5.replay: {compare: raw-bytes}');
  expect(diff.stdout).toContain('+ A-20.unknown-route: {status: 400, code: no_route}');
  expect(diff.stdout).toContain('~ A-21.malformed-json: {status: 400, code: bad_json} → {status: 400, code: json_syntax}');
  expect(diff.stdout).not.toContain('A-16');

  const json = JSON.parse((await runMain('profile', '--diff', serverA, serverB, '--format', 'json')).stdout) as {
    changed: number;
    changes: { entry: string; change: string }[];
  };
  expect(json.changed).toBe(3);
  expect(json.changes.map((item) => `${item.change} ${item.entry}`)).toEqual([
    'removed A-5.replay',
    'added A-20.unknown-route',
    'changed A-21.malformed-json',
  ]);
  const markdown = (await runMain('profile', '--diff', serverA, serverB, '--format', 'markdown')).stdout;
  expect(markdown).toContain('| A-21.malformed-json | changed | `{status: 400, code: bad_json}` | `{status: 400, code: json_syntax}` |');
});

it("merges entry by entry: B's entries replace A's whole, A's others stay, and each replacement is said", async () => {
  const out = join(folder, 'merged', 'profile.yaml');
  const merged = await runMain('profile', '--merge', serverA, serverB, '--out', out);
  expect(merged.code).toBe(0);
  expect(merged.stderr).toContain(`A-21.malformed-json: ${serverB}'s answer replaces ${serverA}'s`);
  expect(merged.stdout).toContain('4 entries (1 of');
  const profile = await readProfileFile(out);
  expect([...profile.declared].sort()).toEqual(['A-16.missing-key', 'A-20.unknown-route', 'A-21.malformed-json', 'A-5.replay']);
  expect(profile.entries['A-21.malformed-json'].code).toBe('json_syntax');
  expect(profile.entries['A-5.replay'].compare).toBe('raw-bytes');
  // A comment is wrapped whole over indented lines: read as one.
  expect(readFileSync(out, 'utf8').replace(/\n *# {3}/g, ' ')).toContain(
    `# from ${serverB}; ${serverA} declared {status: 400, code: bad_json}`,
  );
  // An existing file is kept without --force.
  expect((await runMain('profile', '--merge', serverA, serverB, '--out', out)).code).toBe(2);
});

it('refuses a bad file, a missing one and a wrong use with one line each, exit 2', async () => {
  const broken = file('broken.yaml', 'profile: 2\nA-21:\n  malformed-json: {status: 415, code: x}\n');
  const refused = await runMain('profile', '--diff', serverA, broken);
  expect(refused.code).toBe(2);
  expect(refused.stderr).toMatch(/A-21\.malformed-json: status 415/);
  expect((await runMain('profile', '--diff', serverA, join(folder, 'none.yaml'))).code).toBe(2);
  const one = await runMain('profile', '--diff', serverA);
  expect(one.code).toBe(2);
  expect(one.stderr).toContain('--diff takes two profile files, OLD and NEW (got 1)');
  expect((await runMain('profile', '--merge', serverA, serverB)).stderr).toContain('give --out FILE');
  expect((await runMain('profile', '--diff', serverA, serverB, '--format', 'html')).stderr).toContain('text, json or markdown');
  expect((await runMain('profile', '--diff', '--check', serverA, serverB)).stderr).toContain('go alone');
  for (const result of [one]) expect(result.stderr).not.toMatch(/\n\s+at /);
});
