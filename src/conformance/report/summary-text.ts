/**
 * @module conformance/report/summary-text
 * The end-of-run summary for a terminal: one row per check, then each failure (duplicates merged,
 * required first, by check and operation, then as found) with what was expected, what came back and a curl
 * command to reproduce it.
 */

import { numberedSequence, sequenceHeading } from '../stateful/sequence-lines.js';
import { coverageGaps, coverageLine } from './coverage.js';
import { type ConformanceReport, countsOf, reportedFailures, verdictLine } from './report.js';

/** Coverage gaps listed in the summary; the JSON and HTML reports list them all. */
const gapsShown = 8;

const marks = { passed: 'pass', failed: 'FAIL', skipped: 'skip' } as const;

export function renderSummary(report: ConformanceReport): string {
  const width = Math.max(...report.checks.map((check) => check.name.length), 5);
  const lines = [`${'check'.padEnd(width)}  kind      result  judged  failures`];
  for (const check of report.checks) {
    const failures = check.failedExchanges > 0 ? String(check.failedExchanges) : '';
    lines.push(
      `${check.name.padEnd(width)}  ${check.severity.padEnd(8)}  ${marks[check.status].padEnd(6)}  ${String(check.applied).padStart(6)}  ${failures.padStart(8)}${
        check.status === 'skipped' && check.note ? `  (${check.note})` : ''
      }`,
    );
  }
  const failures = reportedFailures(report);
  if (failures.length > 0) {
    lines.push('', `Failures (${failures.length}):`);
    for (const [index, failure] of failures.entries()) {
      lines.push(
        '',
        `${index + 1}. [${failure.severity}] ${failure.check} · ${failure.operation} · ${failure.title}${failure.occurrences > 1 ? ` (×${failure.occurrences})` : ''}`,
        `   input:    ${failure.input}`,
        `   expected: ${failure.expected}`,
        `   received: ${failure.received}`,
        ...(failure.sequence
          ? [`   reproduce ${sequenceHeading}:`, ...numberedSequence(failure.sequence, '     ')]
          : [`   reproduce: ${failure.curl}`]),
      );
    }
  }
  const variables = Object.entries((report.settings.credentialVariables ?? {}) as Record<string, string>);
  if (failures.length > 0 && variables.length > 0)
    lines.push(
      '',
      `The curl commands read credentials from the environment: ${variables.map(([variable, meaning]) => `${variable} (${meaning})`).join(', ')}.`,
    );
  if (report.notes.length > 0) lines.push('', 'Notes:', ...report.notes.map((note) => `  - ${note}`));
  if (report.incomplete.length > 0)
    lines.push('', 'Incomplete: the verdict cannot be PASSED because', ...report.incomplete.map((reason) => `  - ${reason}`));
  if (report.coverage) {
    const gaps = coverageGaps(report.coverage);
    lines.push('', coverageLine(report.coverage), ...gaps.slice(0, gapsShown).map((gap) => `  - ${gap}`));
    if (gaps.length > gapsShown) lines.push(`  - and ${gaps.length - gapsShown} more (the JSON and HTML reports list them all)`);
  }
  const required = countsOf(report, 'required');
  const advisory = countsOf(report, 'advisory');
  lines.push(
    '',
    `required: ${required.passed} passed, ${required.failed} failed, ${required.skipped} skipped · advisory: ${advisory.passed} passed, ${advisory.failed} failed, ${advisory.skipped} skipped`,
    `${report.requests} requests in ${(report.durationMs / 1000).toFixed(1)} s · seed ${report.seed}, run id ${report.runId} (rerun with --seed ${report.seed}; add --run-id ${report.runId} for the same Idempotency-Keys, on a fresh server) · ${verdictLine(
      report,
    )}${report.strict ? ' (--strict)' : ''}`,
  );
  return `${lines.join('\n')}\n`;
}
