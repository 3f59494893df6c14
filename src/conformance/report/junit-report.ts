/**
 * @module conformance/report/junit-report
 * JUnit XML for CI: one test suite per severity, one test case per check. A failed required
 * check is a <failure>; a failed advisory check is a <failure> only with --strict, else its
 * failures are written to <system-out> so CI shows them without turning red (advisory failures
 * do not fail the run either). A check that judged nothing, or ran only in part, is <skipped>.
 */
import { escapeMarkup } from '../../contract/markup.js';
import { mergeFailures, type Severity } from '../failures.js';
import { numberedSequence, sequenceHeading } from '../stateful/sequence-lines.js';
import { coverageGaps, coverageLine } from './coverage.js';
import { type CheckResult, type ConformanceReport, verdictLine } from './report.js';

function failureText(check: CheckResult): string {
  return mergeFailures(check.failures)
    .map(
      (failure, index) =>
        `${index + 1}. ${failure.operation}: ${failure.title}${failure.occurrences > 1 ? ` (×${failure.occurrences})` : ''}\n` +
        `   input: ${failure.input}\n   expected: ${failure.expected}\n   received: ${failure.received}\n` +
        (failure.sequence
          ? `   reproduce ${sequenceHeading}:\n${numberedSequence(failure.sequence, '     ').join('\n')}`
          : `   reproduce: ${failure.curl}`),
    )
    .join('\n\n');
}

function testCase(check: CheckResult, report: ConformanceReport): string {
  const open = `    <testcase classname="conformance.${check.severity}" name="${escapeMarkup(check.name)}" time="0">`;
  const description = `      <properties><property name="description" value="${escapeMarkup(check.description)}"/>${
    check.assumption ? `<property name="assumption" value="${escapeMarkup(check.assumption)}"/>` : ''
  }</properties>`;
  let body = '';
  if (check.status === 'skipped') {
    body = `      <skipped message="${escapeMarkup(check.note ?? 'nothing to judge')}"/>`;
  } else if (check.status === 'failed') {
    const failures = mergeFailures(check.failures);
    const title = escapeMarkup(`${failures.length} distinct failure(s): ${failures[0]?.title ?? ''}`);
    body =
      check.severity === 'required' || report.strict
        ? `      <failure message="${title}" type="${check.severity}">${escapeMarkup(failureText(check))}</failure>`
        : `      <system-out>${escapeMarkup(`ADVISORY FAILURE (does not fail the run without --strict)\n${failureText(check)}`)}</system-out>`;
  }
  return [open, description, body, '    </testcase>'].filter(Boolean).join('\n');
}

export function renderJunit(report: ConformanceReport): string {
  const suites = (['required', 'advisory'] as Severity[]).map((severity) => {
    const checks = report.checks.filter((check) => check.severity === severity);
    const failures = checks.filter((check) => check.status === 'failed' && (severity === 'required' || report.strict)).length;
    const skipped = checks.filter((check) => check.status === 'skipped').length;
    return [
      `  <testsuite name="${severity}" tests="${checks.length}" failures="${failures}" errors="0" skipped="${skipped}" timestamp="${report.startedAt}">`,
      `    <properties><property name="verdict" value="${report.verdict}"/><property name="exit-code" value="${report.exitCode}"/>${report.incomplete
        .map((reason) => `<property name="incomplete" value="${escapeMarkup(reason)}"/>`)
        .join(
          '',
        )}${report.coverage ? `<property name="coverage" value="${escapeMarkup(coverageLine(report.coverage))}"/>` : ''}</properties>`,
      ...checks.map((check) => testCase(check, report)),
      // The coverage gaps once, in the required suite, where CI shows a suite's output.
      ...(severity === 'required' && report.coverage ? [`    <system-out>${escapeMarkup(coverageText(report))}</system-out>`] : []),
      '  </testsuite>',
    ].join('\n');
  });
  const failures = report.checks.filter((check) => check.status === 'failed' && (check.severity === 'required' || report.strict)).length;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${escapeMarkup(`${report.tool} ${report.target} seed ${report.seed}: ${verdictLine(report)}`)}" tests="${report.checks.length}" failures="${failures}" time="${(report.durationMs / 1000).toFixed(3)}">`,
    ...suites,
    '</testsuites>',
    '',
  ].join('\n');
}

/** The coverage line and every constraint not exercised both ways, with why. */
function coverageText(report: ConformanceReport): string {
  const coverage = report.coverage!;
  const gaps = coverageGaps(coverage);
  return [coverageLine(coverage), ...(gaps.length > 0 ? ['Not exercised:', ...gaps.map((gap) => `  - ${gap}`)] : [])].join('\n');
}
