/**
 * `--watch` reloads only a regular file at the place the path led to at start
 * (docs/assumptions.md A-27): a symbolic link, a FIFO or a folder put there is refused with one
 * line, the last version that loaded stays in force, and a later good save still loads.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { createMockEngine } from '../../src/engine/index.js';
import { readScenarioFile } from '../../src/server/scenario-file.js';
import { type ScenarioWatch, watchScenarioFile } from '../../src/server/scenario-watch.js';
import { fifosReleasedAfterEach } from '../support/fifo.js';
import { saveByRename } from '../support/save-by-rename.js';

const posix = process.platform !== 'win32';
const makeFifo = fifosReleasedAfterEach();
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

function folder(): string {
  const made = mkdtempSync(join(tmpdir(), 'eh-scenario-watch-'));
  cleanups.push(() => rmSync(made, { recursive: true, force: true }));
  return made;
}

const scenarioText = (name: string) => `name: ${name}\n`;
const secret = 'SECRET-7f3a9c1e-do-not-print';

const save = saveByRename;

async function watched(path: string): Promise<{ engine: ReturnType<typeof createMockEngine>; errors: string[]; reloads: string[] }> {
  const loaded = await readScenarioFile(path);
  const engine = createMockEngine({ scenario: loaded.scenario });
  const errors: string[] = [];
  const reloads: string[] = [];
  const watch: ScenarioWatch = watchScenarioFile({
    file: path,
    engine,
    resolvedPath: loaded.resolvedPath,
    startText: loaded.text,
    // real-time: a debounce after an atomic save: a busy machine makes the reload later, never different.
    settleMs: 20,
    onReload: ({ scenario }) => reloads.push(scenario),
    onError: (message) => errors.push(message),
  });
  cleanups.push(() => {
    watch.close();
    engine.close?.();
  });
  return { engine, errors, reloads };
}

/** A mode-600 file holding a recognisable secret, in lines that are not valid YAML (so an old reader would quote them). */
function secretFile(dir: string): string {
  const path = join(dir, 'secrets.txt');
  writeFileSync(path, `${secret}: token: ${secret}\n${secret}\n`);
  chmodSync(path, 0o600);
  return path;
}

it.skipIf(!posix)('refuses a symbolic link swapped in for the watched file, and never shows what it points at', async () => {
  const dir = folder();
  const file = join(dir, 'scenario.yaml');
  writeFileSync(file, scenarioText('first'));
  const { engine, errors, reloads } = await watched(file);
  const secrets = secretFile(dir);

  rmSync(file);
  symlinkSync(secrets, file);
  await expect.poll(() => errors.length).toBeGreaterThan(0);
  expect(errors[0]).toBe(
    `${file} now leads to ${secrets}, not to ${file} as when it was first read (a symbolic link was put in its place or changed): refused, and the last version that loaded stays in force.`,
  );
  expect(errors.join('\n')).not.toContain('SECRET');
  expect(reloads).toEqual([]);
  expect(engine.control.scenario).toBe('first');
});

it.skipIf(!posix)('refuses a FIFO swapped in without waiting on it, and loads the next good save', async () => {
  const dir = folder();
  const file = join(dir, 'scenario.yaml');
  writeFileSync(file, scenarioText('first'));
  const { engine, errors, reloads } = await watched(file);

  rmSync(file);
  makeFifo(file);
  await expect.poll(() => errors.length).toBeGreaterThan(0);
  expect(errors[0]).toBe(
    `${file} (resolved to ${file}) is a FIFO (named pipe), not a regular file: refused, and the last version that loaded stays in force.`,
  );
  expect(engine.control.scenario).toBe('first');

  rmSync(file);
  save(file, scenarioText('second'));
  await expect.poll(() => reloads).toEqual(['second']);
  expect(engine.control.scenario).toBe('second');
});

it('refuses a folder put in place of the watched file, and loads the next good save', async () => {
  const dir = folder();
  const file = join(dir, 'scenario.yaml');
  writeFileSync(file, scenarioText('first'));
  const { engine, errors, reloads } = await watched(file);

  rmSync(file);
  mkdirSync(file);
  await expect.poll(() => errors.length).toBeGreaterThan(0);
  expect(errors[0]).toBe(
    `${file} (resolved to ${file}) is a folder, not a file: refused, and the last version that loaded stays in force.`,
  );

  rmSync(file, { recursive: true });
  save(file, scenarioText('second'));
  await expect.poll(() => reloads).toEqual(['second']);
  expect(engine.control.scenario).toBe('second');
});

it.skipIf(!posix)('follows a scenario given through a symbolic link: saves of its target load, a link re-pointed is refused', async () => {
  const dir = folder();
  const dotfiles = join(dir, 'dotfiles');
  mkdirSync(dotfiles);
  const target = join(dotfiles, 'scenario.yaml');
  const link = join(dir, 'scenario.yaml');
  writeFileSync(target, scenarioText('first'));
  symlinkSync(target, link);
  const { engine, errors, reloads } = await watched(link);

  save(target, scenarioText('second'));
  await expect.poll(() => reloads).toEqual(['second']);

  const secrets = secretFile(dir);
  rmSync(link);
  symlinkSync(secrets, link);
  await expect.poll(() => errors.length).toBeGreaterThan(0);
  expect(errors[0]).toContain(`${link} now leads to ${secrets}, not to ${target}`);
  expect(errors.join('\n')).not.toContain('SECRET');
  expect(engine.control.scenario).toBe('second');
});
