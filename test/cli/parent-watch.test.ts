/**
 * No orphans (issue 33): `npx evidence-harness mock` is npm, the shell npm starts and the mock.
 * SIGTERM or SIGINT to npm's PID (as Makefiles, `concurrently`, CI scripts and container
 * runtimes send it) stops the mock as SIGTERM to the mock itself would: the port is freed and
 * its --coverage-report written. And the watch itself, on facts given to it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it, vi } from 'vitest';
import { type ParentFacts, parentOf, watchParent } from '../../src/cli/parent-watch.js';
import { executablePath, packageRoot } from '../../src/openapi/package-root.js';
import { inTime, testTimeout } from '../support/time-limits.js';

const started: ChildProcess[] = [];
const folders: string[] = [];
/** Mocks started under a stand-in npm: not this process's children, killed by PID if a test fails. */
const grandchildren: number[] = [];
afterEach(() => {
  for (const child of started.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const pid of grandchildren.splice(0)) if (existsSync(`/proc/${pid}`)) process.kill(pid, 'SIGKILL');
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** Facts whose parent PID and files the test changes as it goes. */
function facts(options: { env?: Record<string, string>; cmdline?: string }) {
  const state = { ppid: 4242, switches: 10 };
  const given: ParentFacts = {
    ppid: () => state.ppid,
    read: (path) =>
      path.endsWith('/cmdline')
        ? options.cmdline
        : `Name:\tsh\nvoluntary_ctxt_switches:\t${state.switches}\nnonvoluntary_ctxt_switches:\t3\n`,
    env: options.env ?? {},
  };
  return { state, given };
}

/** Two and a half of the watcher's looks, on vitest's fake clock (the test moves it: issue 43). */
const tick = () => vi.advanceTimersByTime(600);

/** Runs `test` with fake timers, the watcher's interval included. */
async function onFakeTime(test: () => void | Promise<void>): Promise<void> {
  vi.useFakeTimers();
  try {
    await test();
  } finally {
    vi.useRealTimers();
  }
}

/** A shell npm started (PID 4242), whose parent, npm, is `state.npm`; stat lines as Linux writes them. */
function npmShellFacts() {
  const state = { ppid: 4242, npm: 4100 };
  const given: ParentFacts = {
    ppid: () => state.ppid,
    read: (path) => {
      if (path === '/proc/4242/cmdline') return 'sh\0-c\0evidence-harness mock\0';
      if (path === '/proc/4242/stat') return `4242 (sh (npm) x) S ${state.npm} 4100 4100 0 -1 4194560 120 0 0 0 0 0\n`;
      if (path === '/proc/4242/status') return 'Name:\tsh\nvoluntary_ctxt_switches:\t10\nnonvoluntary_ctxt_switches:\t3\n';
      return undefined;
    },
    env: { npm_lifecycle_event: 'mock', npm_execpath: '/usr/lib/node_modules/npm/bin/npm-cli.js' },
  };
  return { state, given };
}

it('reads the parent PID from a stat line whose command name holds spaces and parentheses', () => {
  expect(parentOf(4242, npmShellFacts().given)).toBe(4100);
  expect(parentOf(9, npmShellFacts().given)).toBeUndefined();
});

it('says when npm above the shell ends (the shell re-parented), once, while the shell lives on', () => {
  vi.useFakeTimers();
  try {
    const { state, given } = npmShellFacts();
    const events: unknown[] = [];
    const stop = watchParent((event) => events.push(event), given);
    vi.advanceTimersByTime(1000);
    expect(events).toEqual([]);
    // SIGKILL to npm: the kernel hands the shell to init (or a subreaper); this process's parent is still the shell.
    state.npm = 1;
    vi.advanceTimersByTime(250);
    expect(events).toEqual([{ kind: 'launcher-ended', launcher: 4100, shell: 4242 }]);
    state.npm = 77;
    vi.advanceTimersByTime(1000);
    stop();
    expect(events).toHaveLength(1);
  } finally {
    vi.useRealTimers();
  }
});

it('says when the parent ends, once', () =>
  onFakeTime(() => {
    const { state, given } = facts({});
    const events: unknown[] = [];
    const stop = watchParent((event) => events.push(event), given);
    tick();
    expect(events).toEqual([]);
    state.ppid = 1;
    tick();
    state.ppid = 77;
    tick();
    stop();
    expect(events).toEqual([{ kind: 'parent-ended', parent: 4242 }]);
  }));

it('takes a wake-up of the shell npm started as the SIGINT it holds; not so for any other parent', () =>
  onFakeTime(() => {
    const npmShell = facts({ env: { npm_command: 'exec' }, cmdline: 'sh\0-c\0evidence-harness mock\0' });
    const events: unknown[] = [];
    const stop = watchParent((event) => events.push(event), npmShell.given);
    tick();
    expect(events).toEqual([]);
    npmShell.state.switches += 1;
    tick();
    stop();
    expect(events).toEqual([{ kind: 'shell-interrupted', shell: 4242 }]);

    for (const other of [
      facts({ cmdline: 'sh\0-c\0evidence-harness mock\0' }),
      facts({ env: { npm_command: 'exec' }, cmdline: 'node\0x.js\0' }),
    ]) {
      const seen: unknown[] = [];
      const done = watchParent((event) => seen.push(event), other.given);
      other.state.switches += 5;
      tick();
      done();
      expect(seen).toEqual([]);
    }
  }));

/**
 * Under `npx -p node@22 node vitest.mjs` (scripts/test-node-majors.sh) the environment is npx's
 * own (npm_config_package=node@22, npm_command=exec): a nested `npx evidence-harness` there does
 * not find the project's bin, so this runs once, on CI's own Node and npm (npm test), as the
 * package tests do. What it tests is npm's process tree, not Node's major.
 */
const underNestedNpx = process.env.npm_config_package !== undefined;

it.skipIf(underNestedNpx).each(['SIGTERM', 'SIGINT'] as const)(
  '%s to the PID of `npx evidence-harness mock` stops the mock: the port is free and its coverage report written',
  async (signal) => {
    const folder = mkdtempSync(join(tmpdir(), 'eh-orphan-'));
    folders.push(folder);
    const report = join(folder, 'coverage.json');
    const npx = spawn('npx', ['evidence-harness', 'mock', '--port', '0', '--coverage-report', `json=${report}`], {
      cwd: packageRoot(),
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1' },
    });
    started.push(npx);
    let output = '';
    npx.stdout!.on('data', (chunk) => (output += chunk));
    npx.stderr!.on('data', (chunk) => (output += chunk));
    await expect.poll(() => /listening on (http\S+)/.exec(output)?.[1], { timeout: inTime(), interval: 100 }).toBeDefined();
    const url = /listening on (http\S+)/.exec(output)![1]!;
    expect((await fetch(`${url}/health`)).status).toBe(200);
    npx.kill(signal);
    // The product stops within 2 s (a watch 4 times a second, then the stop of SIGTERM); the bound
    // adds a busy machine's allowance: an orphan would serve the port for ever.
    await expect
      .poll(
        async () => {
          try {
            await fetch(`${url}/health`, { signal: AbortSignal.timeout(1000) });
            return 'still serving';
          } catch {
            return 'port free';
          }
        },
        { timeout: inTime(2000), interval: 200 },
      )
      .toBe('port free');
    await expect.poll(() => existsSync(report), { timeout: inTime(), interval: 100 }).toBe(true);
    await expect.poll(() => output).toMatch(/coverage report written/);
    // The coverage of this run: the /health answered before the signal.
    const written = JSON.parse(readFileSync(report, 'utf8')) as { behaviours: { id: string; covered: boolean }[] };
    expect(written.behaviours.find((behaviour) => behaviour.id === 'health 200')?.covered).toBe(true);
    expect(output).toMatch(
      signal === 'SIGTERM' ? /the process that started it \(PID \d+\) ended: stopping/ : /SIGINT to the npm that started it/,
    );
  },
  testTimeout({ waitsMs: [2000], processes: 2 }),
);

/** Whether a connection to the port is refused (nothing serves it any more). */
function portRefuses(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const connection = connect({ port, host: '127.0.0.1' });
    connection.once('connect', () => {
      connection.destroy();
      resolve(false);
    });
    connection.once('error', () => resolve(true));
  });
}

it(
  "SIGKILL to npm (a stand-in with npm's variables, above `sh -c`) stops the mock: it exits and frees its port",
  async () => {
    const folder = mkdtempSync(join(tmpdir(), 'eh-orphan-kill-'));
    folders.push(folder);
    const report = join(folder, 'coverage.json');
    // A second command after the mock keeps the shell from exec'ing it (dash does for a last command).
    const mockLine = `"${process.execPath}" "${executablePath()}" mock --port 0 --coverage-report json=${report}; echo "mock exited $?"`;
    // The stand-in npm: runs `sh -c` as npm's run-script does, prints the shell's PID, passes output on.
    const standIn = `
      const { spawn } = require('node:child_process');
      const shell = spawn('sh', ['-c', process.argv[1]], { stdio: ['ignore', 'pipe', 'pipe'] });
      process.stdout.write('shell ' + shell.pid + '\\n');
      shell.stdout.pipe(process.stdout);
      shell.stderr.pipe(process.stderr);
    `;
    const npm = spawn(process.execPath, ['-e', standIn, mockLine], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, npm_lifecycle_event: 'mock', npm_execpath: '/usr/lib/node_modules/npm/bin/npm-cli.js', NO_COLOR: '1' },
    });
    started.push(npm);
    let output = '';
    npm.stdout!.on('data', (chunk) => (output += chunk));
    npm.stderr!.on('data', (chunk) => (output += chunk));
    await expect
      .poll(() => /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(output)?.[1], { timeout: inTime(), interval: 100 })
      .toBeDefined();
    const port = Number(/listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(output)![1]);
    const shell = Number(/shell (\d+)/.exec(output)![1]);
    // The mock: the shell's one child.
    const mockPid = Number(readFileSync(`/proc/${shell}/task/${shell}/children`, 'utf8').trim().split(' ')[0]);
    grandchildren.push(mockPid);
    expect(await portRefuses(port)).toBe(false);
    npm.kill('SIGKILL');
    // The shell outlives npm, as it does under the real npm; the mock's exit is what ends the wait.
    await expect.poll(() => existsSync(`/proc/${mockPid}`), { timeout: inTime(2000), interval: 100 }).toBe(false);
    expect(await portRefuses(port)).toBe(true);
    // It stopped as on SIGTERM: its report written.
    expect(existsSync(report)).toBe(true);
  },
  testTimeout({ waitsMs: [2000], processes: 3 }),
);
