/**
 * Issue 40, row "profiles with huge/hostile values for --check and mock --profile": a
 * hostile profile file's bytes never reach the terminal raw. A YAML error quotes the line it
 * stopped at; an escape sequence (ESC, BEL) or a NUL in that line would retitle, recolour or
 * rewrite the terminal of whoever checks a profile a client team sent.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { runMain } from '../support/run-main.js';

const folders: string[] = [];
afterEach(() => {
  for (const made of folders.splice(0)) rmSync(made, { recursive: true, force: true });
});

it.each([
  ['profile', '--check'],
  ['mock', '--port', '0', '--quiet', '--profile'],
])('%s refuses a profile with terminal escapes in a bad line without printing them raw', async (...command) => {
  const folder = mkdtempSync(join(tmpdir(), 'eh-profile-'));
  folders.push(folder);
  const file = join(folder, 'profile.yaml');
  writeFileSync(file, 'profile: 1\nA-9:\n  health: {body: \x1b[31mRED\x1b]0;TITLE\x07 : [}\n');
  const result = await runMain(...command, file);
  expect(result.code).toBe(2);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the bytes a hostile file would smuggle out
  expect(result.stderr).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f]/);
});
