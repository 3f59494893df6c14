/**
 * @module conformance/report/report
 * The result of a run as data: one entry per check (passed, failed or skipped, with its
 * failures; a check that ran only in part is skipped, never passed) and what the run did. Every reporter (summary table, JSON, JUnit, HTML) renders
 * this one value.
 */
import { type Failure, mergeFailures, type Severity } from '../failures.js';
import type { CoverageReport } from './coverage.js';

export type CheckStatus = 'passed' | 'failed' | 'skipped';

export type RunVerdict = 'passed' | 'failed' | 'incomplete';

/** The exit codes of `evidence-harness conformance`. */
export const conformanceExitCodes = { passed: 0, failed: 1, usage: 2, incomplete: 3, SIGINT: 130, SIGTERM: 143 } as const;

/** The verdict as reports print it: "PASSED", "FAILED (exit 1)", "INCOMPLETE (exit 3)", "INTERRUPTED by SIGINT (exit 130)". */
export function verdictLine(report: Pick<ConformanceReport, 'verdict' | 'exitCode' | 'interrupted'>): string {
  if (report.interrupted)
    return `INTERRUPTED by ${report.interrupted}, ${report.verdict === 'failed' ? 'FAILED so far' : 'INCOMPLETE'} (exit ${report.exitCode})`;
  return `${report.verdict.toUpperCase()} (exit ${report.exitCode})`;
}

export interface CheckResult {
  readonly name: string;
  readonly description: string;
  readonly severity: Severity;
  readonly assumption?: string;
  readonly status: CheckStatus;
  /** Exchanges the check judged (passed or failed). */
  readonly applied: number;
  /** Failing exchanges, before grouping. */
  readonly failedExchanges: number;
  /** Why a check was skipped, or what hid its failures. */
  readonly note?: string;
  /**
   * Skipped because the user's operation filters (--include-operation, …) left out every
   * request it judges: a choice, like --exclude-checks, so it does not make the run incomplete.
   */
  readonly leftOut?: boolean;
  /** Failures grouped by operation and title (first occurrence kept, occurrences counted), in compareFailures order. */
  readonly failures: readonly Failure[];
}

export interface ConformanceReport {
  readonly tool: string;
  readonly version: string;
  readonly target: string;
  readonly spec: string;
  readonly seed: number;
  /** With the seed, what the Idempotency-Keys are made of (--run-id). */
  readonly runId: string;
  readonly startedAt: string;
  readonly durationMs: number;
  /** HTTP requests sent (retries and followed redirects included). */
  readonly requests: number;
  readonly maxRequests: number;
  /**
   * Planned requests not sent: --max-requests or --time-budget ran out, an operation was
   * stopped after its timeouts, or the run was interrupted (a job's polls after a refused first
   * read count as one).
   */
  readonly requestsNotSent: number;
  /** Advisory failures fail the run too. */
  readonly strict: boolean;
  /**
   * passed: every required check (with strict, every check) ran and passed; failed: one of them
   * failed; incomplete: none failed, but one did not run (its note says why) or the run was
   * interrupted. An incomplete run never passes.
   */
  readonly verdict: RunVerdict;
  /** The exit code of `evidence-harness conformance` for this report (conformanceExitCodes). */
  readonly exitCode: number;
  /** Why the run is incomplete, one reason per line; empty when it is complete. */
  readonly incomplete: readonly string[];
  /** The signal that interrupted the run (SIGINT, SIGTERM), when one did. */
  readonly interrupted?: string;
  /** verdict === 'passed'. */
  readonly passed: boolean;
  readonly checks: readonly CheckResult[];
  /** What the run exercised of the contract's input constraints, and the documented statuses it saw (absent in reports of older versions). */
  readonly coverage?: CoverageReport;
  /** What the probes could not do, and why. */
  readonly notes: readonly string[];
  /** The command-line options that shape the run (header names only, never values). */
  readonly settings: Readonly<Record<string, unknown>>;
}

/**
 * Every failure of a report, as every reporter lists them: duplicates merged and counted, in
 * one order (required first, then by check and operation, then as found). `conformance replay`
 * numbers failures by this list, as the summary does.
 */
export function reportedFailures(report: Pick<ConformanceReport, 'checks'>): Failure[] {
  return mergeFailures(report.checks.flatMap((check) => check.failures));
}

/** The report with each check's failures merged and in the reports' one order (a report read from a file may predate it). */
export function inReportedOrder(report: ConformanceReport): ConformanceReport {
  return { ...report, checks: report.checks.map((check) => ({ ...check, failures: mergeFailures(check.failures) })) };
}

export function countsOf(report: ConformanceReport, severity: Severity): Record<CheckStatus, number> {
  const counts: Record<CheckStatus, number> = { passed: 0, failed: 0, skipped: 0 };
  for (const check of report.checks) if (check.severity === severity) counts[check.status] += 1;
  return counts;
}
