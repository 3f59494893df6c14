/**
 * @module conformance/report/report
 * The result of a run as data: one entry per check (passed, failed or skipped, with its
 * failures) and what the run did. Every reporter (summary table, JSON, JUnit, HTML) renders
 * this one value.
 */
import type { Failure, Severity } from '../failures.js';

export type CheckStatus = 'passed' | 'failed' | 'skipped';

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
  /** Failures grouped by operation and title, first occurrence kept. */
  readonly failures: readonly Failure[];
}

export interface ConformanceReport {
  readonly tool: string;
  readonly version: string;
  readonly target: string;
  readonly spec: string;
  readonly seed: number;
  readonly startedAt: string;
  readonly durationMs: number;
  /** HTTP requests sent (retries and followed redirects included). */
  readonly requests: number;
  readonly maxRequests: number;
  /** Requests the probes wanted but --max-requests did not allow. */
  readonly requestsNotSent: number;
  /** Advisory failures fail the run too. */
  readonly strict: boolean;
  /** True when every required check (and, with strict, every advisory one) passed or was skipped. */
  readonly passed: boolean;
  readonly checks: readonly CheckResult[];
  /** What the probes could not do, and why. */
  readonly notes: readonly string[];
  /** The command-line options that shape the run (header names only, never values). */
  readonly settings: Readonly<Record<string, unknown>>;
}

export function countsOf(report: ConformanceReport, severity: Severity): Record<CheckStatus, number> {
  const counts: Record<CheckStatus, number> = { passed: 0, failed: 0, skipped: 0 };
  for (const check of report.checks) if (check.severity === severity) counts[check.status] += 1;
  return counts;
}
