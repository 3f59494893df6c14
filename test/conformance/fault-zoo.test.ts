/**
 * The fault zoo (STYLE 9): each known-bad server breaks one rule, and the runner must fail
 * exactly the check for that rule — no other check, required or advisory — while the clean
 * server fails none. Together the faults prove that every check in the registry can fail.
 */
import { expect, it } from 'vitest';
import { checks } from '../../src/conformance/checks/registry.js';
import { cleanHandler, faults } from '../fixtures/fault-zoo/faults.js';
import { expectCaughtByItsCheck, failingChecks } from '../fixtures/fault-zoo/zoo-run.js';

it('passes the clean server: no check fails, required or advisory', async () => {
  const { report, failed } = await failingChecks(cleanHandler());
  expect(
    failed,
    JSON.stringify(
      report.checks.flatMap((check) => check.failures),
      null,
      2,
    ),
  ).toEqual([]);
  expect(report.verdict).toBe('passed');
  expect(report.exitCode).toBe(0);
  expect(report.checks.filter((check) => check.status === 'skipped').map((check) => check.name)).toEqual([]);
});

it('has at least 25 faults, one rule each, and a fault for every check', () => {
  expect(faults.length).toBeGreaterThanOrEqual(25);
  expect(new Set(faults.map((fault) => fault.name)).size).toBe(faults.length);
  expect(new Set(faults.map((fault) => fault.check))).toEqual(new Set(checks.map((check) => check.name)));
});

// The faults whose detection is a race of the wall clock run in the slow project (fault-zoo-real-time.test.ts).
it.concurrent.each(faults.filter((fault) => !fault.realTime).map((fault) => [fault.name, fault] as const))(
  'catches %s with exactly its check',
  async (_, fault) => expectCaughtByItsCheck(fault),
);
