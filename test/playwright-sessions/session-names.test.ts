/**
 * The Playwright fixture's session names (docs/assumptions.md A-63): a run's id is part of
 * every name, so a rerun, or a second run at once against the same mock, never meets the
 * sessions of another run; names stay readable and within the header's charset.
 */
import { expect, it } from 'vitest';
import { checkSessionName } from '../../src/engine/session-book.js';
import { currentRunId, runIdVariable, sessionNameFor } from '../../src/playwright/index.js';

const testInfo = {
  testId: '3f9a2c7e1b-0d4c8e2f6a9b1c3d5e7f',
  workerIndex: 2,
  retry: 1,
  repeatEachIndex: 0,
  file: '/home/dev/app/tests/login.spec.ts',
  title: 'shows the error when the service answers 503',
};

it('names the same test differently in two runs, and the same within one run', () => {
  const first = sessionNameFor(testInfo, { runId: 'k3x9qa' });
  const second = sessionNameFor(testInfo, { runId: 'b7m2zp' });
  expect(first).not.toBe(second);
  expect(sessionNameFor(testInfo, { runId: 'k3x9qa' })).toBe(first);
  // Cut to 64 characters, the title last.
  expect(first).toBe('k3x9qa-login-shows_the_error_when_the_service_answ-3f9a2c-w2r1e0');
});

it('keeps names within the session name rules however long or odd the title and file', () => {
  const odd = [
    { ...testInfo, title: 'x'.repeat(500), file: `/${'deep/'.repeat(40)}${'f'.repeat(200)}.spec.ts` },
    { ...testInfo, title: 'ünïcödé / slashes {braces} and spaces', file: 'C:\\tests\\über.test.tsx' },
    { ...testInfo, title: '', file: '' },
    { ...testInfo, testId: '///', workerIndex: 123, retry: 45, repeatEachIndex: 678 },
  ];
  for (const info of odd) {
    for (const runId of ['a', 'k3x9qa', 'p1234567890a']) {
      const name = sessionNameFor(info, { runId });
      expect(checkSessionName(name)).toBe(name);
      expect(name.startsWith(`${runId}-`)).toBe(true);
      expect(name).toMatch(/-w\d+r\d+e\d+$/);
    }
  }
});

it('tells the retry, the repeat and the worker apart', () => {
  const names = new Set([
    sessionNameFor(testInfo, { runId: 'r1' }),
    sessionNameFor({ ...testInfo, retry: 2 }, { runId: 'r1' }),
    sessionNameFor({ ...testInfo, repeatEachIndex: 1 }, { runId: 'r1' }),
    sessionNameFor({ ...testInfo, workerIndex: 3 }, { runId: 'r1' }),
  ]);
  expect(names.size).toBe(4);
});

it('reads the run id workers inherit, and refuses one outside letters and digits', () => {
  expect(currentRunId({ [runIdVariable]: 'ci4812' })).toBe('ci4812');
  expect(() => currentRunId({ [runIdVariable]: 'a/b c' })).toThrow(/1 to 12 letters and digits/);
  // Without the variable, the runner's process (every worker's parent) names the run.
  expect(currentRunId({})).toBe(`p${process.ppid.toString(36)}`);
  expect(() => sessionNameFor(testInfo, { runId: 'run-1' })).toThrow(/1 to 12 letters and digits/);
});
