/**
 * The files `evidence-harness mock` reads on the user's behalf (`--scenario`, `--watch`,
 * `--config`) are regular files at the place their path led to at start (docs/assumptions.md
 * A-27), through the built executable: a FIFO or a symbolic link swapped in is refused, what it
 * points at is never shown, and SIGTERM still ends the mock within its 4 s.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, expect, it } from 'vitest';
import { cliChildrenKilledAfterEach } from '../support/cli-child.js';
import { fifosReleasedAfterEach } from '../support/fifo.js';
import { saveByRename } from '../support/save-by-rename.js';
import { inTime } from '../support/time-limits.js';

const posix = process.platform !== 'win32';
const spawnCli = cliChildrenKilledAfterEach();
const makeFifo = fifosReleasedAfterEach();
const folders: string[] = [];
afterEach(() => {
  for (const made of folders.splice(0)) rmSync(made, { recursive: true, force: true });
});

function folder(): string {
  const made = mkdtempSync(join(tmpdir(), 'eh-mock-files-'));
  folders.push(made);
  return made;
}

const scenarioText = (name: string) => `name: ${name}\n`;
const secret = 'SECRET-7f3a9c1e-do-not-print';

const save = saveByRename;

it.skipIf(!posix)('--watch: a FIFO swapped in is refused, a later save loads, and SIGTERM still exits within 4 s', async () => {
  const dir = folder();
  const file = join(dir, 'scenario.yaml');
  writeFileSync(file, scenarioText('first'));
  const mock = spawnCli(['mock', '--port', '0', '--quiet', '--scenario', file, '--watch']);
  await mock.waitFor(/listening on/);

  rmSync(file);
  makeFifo(file);
  await expect.poll(() => mock.stderr()).toContain('is a FIFO (named pipe), not a regular file');
  expect(mock.stderr()).toBe(
    `evidence-harness: mock: --watch: ${file} (resolved to ${file}) is a FIFO (named pipe), not a regular file: refused, and the last version that loaded stays in force.\n`,
  );

  rmSync(file);
  save(file, scenarioText('second'));
  await mock.waitFor(/scenario reloaded from .*scenario\.yaml: second \(in force\)/);

  // A FIFO in place when the mock is told to stop.
  rmSync(file);
  makeFifo(file);
  await expect.poll(() => mock.stderr().match(/is a FIFO/g)?.length).toBe(2);
  const stopping = Date.now();
  mock.child.kill('SIGTERM');
  const code = await Promise.race([mock.exit, sleep(inTime()).then(() => `still running after ${inTime() / 1000} s`)]);
  expect(code).toBe(0);
  // The stop's own deadline (3 s grace, then 1 s to exit) honoured, not its speed.
  expect(Date.now() - stopping).toBeLessThan(inTime(4000));
});

it.skipIf(!posix)('--watch: a symbolic link to a mode-600 secrets file swapped in is refused and its lines never printed', async () => {
  const dir = folder();
  const file = join(dir, 'scenario.yaml');
  const secrets = join(dir, 'secrets.txt');
  writeFileSync(file, scenarioText('first'));
  // Lines that are not valid YAML: a reader that parsed them would print them in its error.
  writeFileSync(secrets, `${secret}: token: ${secret}\n${secret}\n`);
  chmodSync(secrets, 0o600);
  const mock = spawnCli(['mock', '--port', '0', '--quiet', '--scenario', file, '--watch']);
  const [, url] = await mock.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/);

  rmSync(file);
  symlinkSync(secrets, file);
  await expect.poll(() => mock.stderr()).toContain('refused');
  expect(mock.stderr()).toBe(
    `evidence-harness: mock: --watch: ${file} now leads to ${secrets}, not to ${file} as when it was first read (a symbolic link was put in its place or changed): refused, and the last version that loaded stays in force.\n`,
  );
  expect(mock.stdout() + mock.stderr()).not.toContain('SECRET');
  const scenarios = await (await fetch(`${url}/__mock/scenarios`)).json();
  expect(scenarios.current).toBe('first');
});

it.skipIf(!posix)('--scenario and --config given a FIFO at start: refused at once with exit 2', async () => {
  const dir = folder();
  const scenario = join(dir, 'scenario.yaml');
  const config = join(dir, 'evidence-harness.config.yaml');
  makeFifo(scenario);
  makeFifo(config);

  const byScenario = spawnCli(['mock', '--port', '0', '--scenario', scenario]);
  expect(await Promise.race([byScenario.exit, sleep(inTime()).then(() => `still running after ${inTime() / 1000} s`)])).toBe(2);
  expect(byScenario.stderr()).toBe(
    `evidence-harness: mock: --scenario: ${scenario} (resolved to ${scenario}) is a FIFO (named pipe), not a regular file; pass a shipped scenario's name or the path of a .json, .yaml or .yml scenario file.\n`,
  );

  const byConfig = spawnCli(['mock', '--port', '0', '--config', config]);
  expect(await Promise.race([byConfig.exit, sleep(inTime()).then(() => `still running after ${inTime() / 1000} s`)])).toBe(2);
  expect(byConfig.stderr()).toContain(`--config: ${config} (resolved to ${config}) is a FIFO (named pipe), not a regular file.`);

  // The config file found in the working folder is held to the same rule.
  const found = spawnCli(['mock', '--port', '0'], { cwd: dir });
  expect(await Promise.race([found.exit, sleep(inTime()).then(() => `still running after ${inTime() / 1000} s`)])).toBe(2);
  expect(found.stderr()).toContain('--config: evidence-harness.config.yaml (resolved to');
});

it.skipIf(!posix)(
  '--scenario and --config given through a symbolic link at start: followed once, and --watch follows the target',
  async () => {
    const dir = folder();
    const dotfiles = join(dir, 'dotfiles');
    mkdirSync(dotfiles);
    const target = join(dotfiles, 'scenario.yaml');
    const link = join(dir, 'scenario.yaml');
    writeFileSync(target, scenarioText('first'));
    symlinkSync(target, link);
    const configTarget = join(dotfiles, 'evidence-harness.config.yaml');
    writeFileSync(configTarget, 'mock:\n  quiet: true\n');
    symlinkSync(configTarget, join(dir, 'evidence-harness.config.yaml'));

    const mock = spawnCli(['mock', '--port', '0', '--scenario', link, '--watch'], { cwd: dir });
    await mock.waitFor(/listening on .*\(scenario: first\)/);
    expect(mock.stdout()).toContain('options from evidence-harness.config.yaml');
    save(target, scenarioText('second'));
    await mock.waitFor(/scenario reloaded from .*scenario\.yaml: second \(in force\)/);
    expect(mock.stderr()).toBe('');
  },
);
