/**
 * @module conformance/report/html-report
 * One self-contained HTML page (inline CSS, no scripts, nothing fetched): the summary table,
 * then each failure with its reproduction, for attaching to a CI run.
 */
import { escapeMarkup } from '../../contract/markup.js';
import { sequenceHeading } from '../stateful/sequence-lines.js';
import { type ConstraintCoverage, type CoverageReport, coverageLine, type Exercise } from './coverage.js';
import { type ConformanceReport, countsOf, reportedFailures, verdictLine } from './report.js';

const style = `
body{font:14px/1.45 system-ui,sans-serif;margin:2rem;color:#1b1f24;max-width:80rem}
h1{font-size:1.4rem}table{border-collapse:collapse;width:100%;margin:1rem 0}
th,td{border-bottom:1px solid #d0d7de;padding:.35rem .5rem;text-align:left;vertical-align:top}
th{background:#f6f8fa}.passed{color:#1a7f37}.failed{color:#cf222e;font-weight:600}.incomplete{color:#9a6700;font-weight:600}.skipped{color:#6e7781}
.verdict{font-size:1.1rem;font-weight:600}code,pre{font:12px/1.4 ui-monospace,monospace}
pre{background:#f6f8fa;padding:.6rem;overflow-x:auto;white-space:pre-wrap;word-break:break-all}
details{border:1px solid #d0d7de;border-radius:6px;padding:.5rem .8rem;margin:.6rem 0}
summary{cursor:pointer}dt{font-weight:600}dd{margin:0 0 .4rem 0}`;

export function renderHtml(report: ConformanceReport): string {
  const required = countsOf(report, 'required');
  const advisory = countsOf(report, 'advisory');
  const rows = report.checks
    .map(
      (check) =>
        `<tr><td><code>${escapeMarkup(check.name)}</code></td><td>${check.severity}${check.assumption ? ` (${check.assumption})` : ''}</td>` +
        `<td class="${check.status}">${check.status}</td><td>${check.applied}</td><td>${check.failedExchanges || ''}</td>` +
        `<td>${escapeMarkup(check.description)}${check.note ? `<br><small>${escapeMarkup(check.note)}</small>` : ''}</td></tr>`,
    )
    .join('\n');
  const failures = reportedFailures(report)
    .map(
      (failure) =>
        `<details open><summary><strong>${escapeMarkup(failure.check)}</strong> (${failure.severity}) · ${escapeMarkup(failure.operation)} · ${escapeMarkup(failure.title)}${
          failure.occurrences > 1 ? ` ×${failure.occurrences}` : ''
        }</summary><dl>` +
        `<dt>Input</dt><dd>${escapeMarkup(failure.input)}</dd><dt>Expected</dt><dd>${escapeMarkup(failure.expected)}</dd>` +
        `<dt>Received</dt><dd><pre>${escapeMarkup(failure.received)}</pre></dd><dt>Reproduce</dt><dd>${
          failure.sequence
            ? `${escapeMarkup(sequenceHeading)}<ol>${failure.sequence.map((line) => `<li><pre>${escapeMarkup(line)}</pre></li>`).join('')}</ol>`
            : `<pre>${escapeMarkup(failure.curl)}</pre>`
        }</dd></dl></details>`,
    )
    .join('\n');
  const incomplete =
    report.incomplete.length > 0
      ? `<p>Incomplete: the verdict cannot be PASSED because</p><ul>${report.incomplete.map((reason) => `<li>${escapeMarkup(reason)}</li>`).join('')}</ul>`
      : '';
  const coverage = report.coverage ? coverageSection(report.coverage) : '';
  const notes =
    report.notes.length > 0 ? `<h2>Notes</h2><ul>${report.notes.map((note) => `<li>${escapeMarkup(note)}</li>`).join('')}</ul>` : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Conformance: ${escapeMarkup(report.target)}</title><style>${style}</style></head><body>
<h1>Conformance of ${escapeMarkup(report.target)}</h1>
<p class="verdict ${report.verdict === 'passed' ? 'passed' : report.verdict === 'failed' ? 'failed' : 'incomplete'}">${escapeMarkup(verdictLine(report))}${report.strict ? ' (strict)' : ''}</p>
${incomplete}
<p>Spec <code>${escapeMarkup(report.spec)}</code> · seed <code>${report.seed}</code> · ${report.requests} requests (limit ${report.maxRequests}) ·
${(report.durationMs / 1000).toFixed(1)} s · started ${escapeMarkup(report.startedAt)} · ${escapeMarkup(report.tool)} ${escapeMarkup(report.version)}</p>
<p>Required: ${required.passed} passed, ${required.failed} failed, ${required.skipped} skipped. Advisory: ${advisory.passed} passed, ${advisory.failed} failed, ${advisory.skipped} skipped.</p>
<table><thead><tr><th>Check</th><th>Kind</th><th>Result</th><th>Judged</th><th>Failures</th><th>Rule</th></tr></thead><tbody>
${rows}
</tbody></table>
${failures ? `<h2>Failures</h2>\n${failures}` : '<h2>No failures</h2>'}
${coverage}
${notes}
</body></html>
`;
}

function exerciseCell(exercise: Exercise): string {
  return exercise.why === undefined
    ? `<td class="passed">${exercise.answered}</td>`
    : `<td class="skipped">0<br><small>${escapeMarkup(exercise.why)}</small></td>`;
}

/** The coverage of the contract: each input constraint, valid and broken, then the documented statuses seen. */
function coverageSection(coverage: CoverageReport): string {
  const row = (entry: ConstraintCoverage) =>
    `<tr><td>${escapeMarkup(entry.operation)}</td><td>${entry.location}</td><td><code>${escapeMarkup(entry.target)}</code></td>` +
    `<td><code>${escapeMarkup(entry.rule)}</code></td>${exerciseCell(entry.positive)}${exerciseCell(entry.negative)}</tr>`;
  const statuses = coverage.statuses
    .map(
      (status) =>
        `<tr><td>${escapeMarkup(status.operation)}</td><td>${escapeMarkup(status.status)}</td><td class="${status.seen > 0 ? 'passed' : 'skipped'}">${status.seen}</td></tr>`,
    )
    .join('\n');
  return `<h2>Coverage of the contract</h2>
<p>${escapeMarkup(coverageLine(coverage))}. A constraint is exercised <em>valid</em> by an answered request carrying a valid value there (for a limit, a value exactly on it), and <em>broken</em> by one breaking it alone.</p>
<table><thead><tr><th>Operation</th><th>In</th><th>Where</th><th>Constraint</th><th>Valid (answered)</th><th>Broken (answered)</th></tr></thead><tbody>
${coverage.constraints.map(row).join('\n')}
</tbody></table>
<table><thead><tr><th>Operation</th><th>Documented status</th><th>Answers seen</th></tr></thead><tbody>
${statuses}
</tbody></table>`;
}
