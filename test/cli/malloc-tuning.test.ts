/**
 * The one restart of `mock` and `proxy` with glibc's mmap threshold fixed (src/cli/malloc-tuning.ts):
 * when it happens, when it must not, and that the built executable, started as a person starts
 * it, serves from a process that has the setting (same PID) on a Node that can restart itself.
 */
import { readFileSync } from 'node:fs';
import { afterEach, expect, it } from 'vitest';
import { mallocTuningSwitch, mmapThresholdVariable, type ProcessFacts, planMallocTuning } from '../../src/cli/malloc-tuning.js';
import { startMockProcess } from '../hardening/mock-process.js';

const linuxGlibc: ProcessFacts = {
  platform: 'linux',
  args: ['mock', '--port', '4010'],
  env: { PATH: '/usr/bin', NODE_OPTIONS: '--max-old-space-size=512' },
  canExecve: true,
  glibcVersion: () => '2.36',
};

it('restarts mock and proxy on Linux with glibc, keeping the environment and adding the threshold', () => {
  for (const command of ['mock', 'proxy']) {
    const plan = planMallocTuning({ ...linuxGlibc, args: [command, '--quiet'] });
    expect(plan).toEqual({
      restart: true,
      env: { PATH: '/usr/bin', NODE_OPTIONS: '--max-old-space-size=512', [mmapThresholdVariable]: '32768' },
    });
  }
});

it("restarts the commands that buffer others' bodies; not the rest, help, or where the setting cannot apply", () => {
  const reasons = (changes: Partial<ProcessFacts>) => {
    const plan = planMallocTuning({ ...linuxGlibc, ...changes });
    return plan.restart ? 'restart' : plan.reason;
  };
  expect(reasons({ args: ['conformance', '--base-url', 'http://127.0.0.1:1'] })).toBe('restart');
  expect(reasons({ args: ['diff', 'a.yaml', 'b.yaml'] })).toBe('not a command that buffers large bodies');
  expect(reasons({ args: [] })).toBe('not a command that buffers large bodies');
  expect(reasons({ args: ['mock', '--help'] })).toBe('help only');
  expect(reasons({ platform: 'darwin' })).toBe('not Linux (darwin)');
  expect(reasons({ canExecve: false })).toBe('this node has no process.execve');
  expect(reasons({ glibcVersion: () => undefined })).toBe('not glibc');
});

it('leaves the choice to the user: an explicit setting wins, and the switch turns it off', () => {
  const plan = (env: Record<string, string>) => planMallocTuning({ ...linuxGlibc, env });
  // Also what keeps the restarted process from restarting again.
  expect(plan({ [mmapThresholdVariable]: '131072' })).toEqual({ restart: false, reason: 'the mmap threshold is already set' });
  expect(plan({ GLIBC_TUNABLES: 'glibc.malloc.mmap_threshold=65536' }).restart).toBe(false);
  expect(plan({ GLIBC_TUNABLES: 'glibc.malloc.arena_max=2' }).restart).toBe(true);
  for (const off of ['off', 'OFF', '0', 'false']) expect(plan({ [mallocTuningSwitch]: off }).restart).toBe(false);
  expect(plan({ [mallocTuningSwitch]: 'on' }).restart).toBe(true);
});

it('never asks for the C library when nothing else allows a restart (the report costs milliseconds)', () => {
  let asked = 0;
  const glibcVersion = () => {
    asked += 1;
    return '2.36';
  };
  planMallocTuning({ ...linuxGlibc, args: ['spec'], glibcVersion });
  planMallocTuning({ ...linuxGlibc, canExecve: false, glibcVersion });
  expect(asked).toBe(0);
});

const canRestart = typeof (process as unknown as { execve?: unknown }).execve === 'function' && process.platform === 'linux';
const started: { stop(): Promise<unknown> }[] = [];
afterEach(async () => {
  for (const mock of started.splice(0)) await mock.stop();
});

function environmentOf(pid: number): Record<string, string> {
  const entries = readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').filter(Boolean);
  return Object.fromEntries(entries.map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]));
}

it.runIf(process.platform === 'linux')(
  `the built mock serves from its own PID with the setting ${canRestart ? '(this Node restarts)' : '(this Node cannot restart: unchanged)'}`,
  async () => {
    const mock = await startMockProcess();
    started.push(mock);
    expect((await fetch(`${mock.url}/health`)).status).toBe(200);
    // /proc/PID/environ is the environment the process image was started with: the restarted one's.
    const environment = environmentOf(mock.child.pid!);
    expect(environment[mmapThresholdVariable]).toBe(canRestart ? '32768' : undefined);
    // The PID the caller holds is the server's: SIGTERM there stops it cleanly.
    expect(await mock.stop()).toBe(0);
  },
);

it.runIf(canRestart)('does not restart when switched off, and the mock still serves', async () => {
  const mock = await startMockProcess([], { env: { [mallocTuningSwitch]: 'off' } });
  started.push(mock);
  expect((await fetch(`${mock.url}/health`)).status).toBe(200);
  expect(environmentOf(mock.child.pid!)[mmapThresholdVariable]).toBeUndefined();
  expect(await mock.stop()).toBe(0);
});
