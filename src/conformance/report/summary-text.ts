/**
 * @module conformance/report/summary-text
 * The end-of-run summary for a terminal: one row per check, then each failure (duplicates merged,
 * required first, by check and operation, then as found) with what was expected, what came back and a curl
 * command to reproduce it.
 */

import type { Failure } from '../failures.js';
import { numberedSequence, sequenceHeading } from '../stateful/sequence-lines.js';
import { causesOf } from './causes.js';
import { coverageGaps, coverageLine } from './coverage.js';
import { type ConformanceReport, countsOf, reportedFailures, verdictLine } from './report.js';

/** Coverage gaps listed in the summary; the JSON and HTML reports list them all. */
const gapsShown = 8;

const marks = { passed: 'pass', failed: 'FAIL', skipped: 'skip' } as const;

/** An `expected` this long, repeated, is said once and then referred to (error_code_documented's 15 codes). */
const longExpected = 100;

/** One failure's lines, under its number in the reports' one order. */
function failureLines(failure: Failure, number: number, firstWith: Map<string, number>): string[] {
  const earlier = failure.expected.length > longExpected ? firstWith.get(failure.expected) : undefined;
  if (earlier === undefined) firstWith.set(failure.expected, number);
  return [
    '',
    `${number}. [${failure.severity}] ${failure.check} · ${failure.operation} · ${failure.title}${failure.occurrences > 1 ? ` (×${failure.occurrences})` : ''}`,
    `   input:    ${failure.input}`,
    `   expected: ${earlier === undefined ? failure.expected : `as in failure ${earlier}`}`,
    `   received: ${failure.received}`,
    ...(failure.sequence
      ? [`   reproduce ${sequenceHeading}:`, ...numberedSequence(failure.sequence, '     ')]
      : [`   reproduce: ${failure.curl}`]),
  ];
}

export function renderSummary(report: ConformanceReport): string {
  const width = Math.max(...report.checks.map((check) => check.name.length), 5);
  const failures = reportedFailures(report);
  const causes = causesOf(failures, { credentialHeaders: (report.settings.headers ?? []) as string[] });
  // One cause behind many failures is said first, once; its failures are listed under it.
  const lines = [
    ...causes.map((cause) => cause.line),
    ...(causes.length > 0 ? [''] : []),
    // Both counts are answers: `judged` the answers a check judged, `failed` those it failed.
    `${'check'.padEnd(width)}  kind      result  judged    failed`,
  ];
  for (const check of report.checks) {
    const failures = check.failedExchanges > 0 ? String(check.failedExchanges) : '';
    lines.push(
      `${check.name.padEnd(width)}  ${check.severity.padEnd(8)}  ${marks[check.status].padEnd(6)}  ${String(check.applied).padStart(6)}  ${failures.padStart(8)}${
        check.status === 'skipped' && check.note ? `  (${check.note})` : ''
      }`,
    );
  }
  if (failures.length > 0) {
    // The list merges the answers that failed one way (×N), so it says both units.
    const answers = report.checks.reduce((sum, check) => sum + check.failedExchanges, 0);
    lines.push(
      '',
      `Failures: ${failures.length} distinct, from ${answers} failed ${answers === 1 ? 'answer' : 'answers'} (the table's "failed"):`,
    );
    const firstWith = new Map<string, number>();
    const grouped = new Set(causes.flatMap((cause) => cause.failures));
    // Numbers stay those of the reports' one order (conformance replay --failure N uses them).
    for (const cause of causes) {
      lines.push('', `${cause.line.replace(/^Cause: /, 'From one cause, ').replace(/:.*$/, '')} (${cause.failures.length}):`);
      for (const number of cause.failures)
        lines.push(...failureLines(failures[number - 1]!, number, firstWith).map((line) => (line ? `  ${line}` : line)));
    }
    if (causes.length > 0 && grouped.size < failures.length) lines.push('', `Other failures (${failures.length - grouped.size}):`);
    for (const [index, failure] of failures.entries())
      if (!grouped.has(index + 1)) lines.push(...failureLines(failure, index + 1, firstWith));
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
