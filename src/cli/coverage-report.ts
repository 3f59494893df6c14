/**
 * @module cli/coverage-report
 * `mock --coverage-report json=FILE|html=FILE` and the summary printed when the mock stops:
 * the engine's coverage document (control.coverage()) as a file, as a static HTML page, and as
 * one screen of text. Every value in the HTML is escaped: paths and keys in findings came from
 * clients.
 */
import { resolve } from 'node:path';
import { escapeMarkup } from '../contract/markup.js';
import type { BehaviourCoverage } from '../engine/index.js';
import { writeOutputFile } from '../files/output-file.js';
import { UsageError } from './command.js';
import { checkOutputAtStart } from './file-options.js';
import { type CoverageDocument, sessionsHtml, sessionsLine } from './sessions-report.js';

export type CoverageReportFormat = 'json' | 'html';

export interface CoverageReportTarget {
  readonly format: CoverageReportFormat;
  readonly file: string;
}

/** `json=FILE` or `html=FILE`, as --coverage-report takes it (parsed only; `coverageReportTargets` checks the file). */
export function parseCoverageReportOption(value: string): CoverageReportTarget {
  const match = /^(json|html)=(.+)$/.exec(value);
  if (!match) {
    throw new UsageError(
      `--coverage-report takes json=FILE or html=FILE (repeatable), got '${value.slice(0, 200)}'. Example: --coverage-report json=coverage.json --coverage-report html=coverage.html.`,
    );
  }
  return { format: match[1] as CoverageReportFormat, file: match[2]! };
}

/** `--coverage-report` values, parsed and checked at start so a report that cannot be written fails before serving. */
export async function coverageReportTargets(values: readonly string[]): Promise<CoverageReportTarget[]> {
  const targets = values.map(parseCoverageReportOption);
  for (const target of targets) await checkOutputAtStart({ path: target.file, label: `--coverage-report ${target.format}=` });
  return targets;
}

/** Writes each report; returns the absolute paths written. */
export async function writeCoverageReports(options: {
  report: CoverageDocument;
  targets: readonly CoverageReportTarget[];
  cwd: string;
}): Promise<string[]> {
  const written: string[] = [];
  for (const target of options.targets) {
    const data = target.format === 'json' ? `${JSON.stringify(options.report, null, 2)}\n` : coverageHtml(options.report);
    written.push(await writeOutputFile({ path: resolve(options.cwd, target.file), data, label: `--coverage-report ${target.format}=` }));
  }
  return written;
}

const groups: readonly { name: string; test: (id: string) => boolean; short: (id: string) => string }[] = [
  { name: 'statuses', test: (id) => /^[a-zA-Z]+ \d{3}$/.test(id), short: (id) => id },
  { name: 'job states', test: (id) => id.startsWith('job '), short: (id) => id.slice(4) },
  { name: 'evaluations', test: (id) => id.startsWith('evaluation '), short: (id) => id.slice(11) },
  { name: 'error codes', test: (id) => id.startsWith('error '), short: (id) => id.slice(6) },
  { name: 'other', test: () => true, short: (id) => id },
];

/** Most missing ids a summary line names before "and N more". */
const namedPerLine = 8;

/** One screen of text: the covered count, what each group misses, and the findings. */
export function coverageSummary(report: CoverageDocument): string {
  const lines = [`consumer coverage: ${report.covered} of ${report.total} behaviours seen`];
  const sessions = sessionsLine(report);
  if (sessions) lines.push(sessions);
  const placed = new Set<string>();
  for (const group of groups) {
    const members = report.behaviours.filter((behaviour) => !placed.has(behaviour.id) && group.test(behaviour.id));
    for (const member of members) placed.add(member.id);
    const missing = members.filter((behaviour) => !behaviour.covered).map((behaviour) => group.short(behaviour.id));
    const named = missing.slice(0, namedPerLine).join(', ');
    const more = missing.length > namedPerLine ? ` and ${missing.length - namedPerLine} more` : '';
    lines.push(
      `  ${`${group.name}:`.padEnd(13)} ${members.length - missing.length} of ${members.length}${missing.length ? ` — missing: ${named}${more}` : ''}`,
    );
  }
  const findings = report.clientFindings;
  lines.push(`client findings: ${findings.length === 0 ? 'none' : findings.length}`);
  for (const finding of findings) {
    const { method, path, status } = finding.example;
    lines.push(`  ${finding.rule} (${finding.count}×), e.g. ${method} ${path.slice(0, 80)} → ${status}`);
  }
  lines.push('(every behaviour: --coverage-report, GET /__mock/coverage or /__mock/ui; docs/coverage.md)');
  return `${lines.join('\n')}\n`;
}

function behaviourRow(behaviour: BehaviourCoverage): string {
  return `<tr class="${behaviour.covered ? 'covered' : 'missing'}"><td>${behaviour.covered ? 'seen' : 'missing'}</td><td><code>${escapeMarkup(behaviour.id)}</code></td><td>${behaviour.count}</td><td>${escapeMarkup(behaviour.description)}</td></tr>`;
}

/** A static page: no script, styles inline but forbidden nothing else (it is opened from disk). */
export function coverageHtml(report: CoverageDocument): string {
  const findings = report.clientFindings.length
    ? `<table><thead><tr><th>Rule</th><th>Count</th><th>Message</th><th>Example request</th></tr></thead><tbody>${report.clientFindings
        .map(
          (finding) =>
            `<tr><td><code>${escapeMarkup(finding.rule)}</code></td><td>${finding.count}</td><td>${escapeMarkup(finding.message)}</td><td>${escapeMarkup(
              `${finding.example.method} ${finding.example.path} → ${finding.example.status}`,
            )}</td></tr>`,
        )
        .join('')}</tbody></table>`
    : '<p>No findings.</p>';
  const missingFirst = [...report.behaviours].sort((a, b) => Number(a.covered) - Number(b.covered));
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>evidence-harness consumer coverage</title>
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<style>body{font:14px/1.4 system-ui,sans-serif;margin:16px}table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ccc;padding:3px 6px;text-align:left;vertical-align:top}.missing td:first-child{color:#a50e0e;font-weight:600}.covered td:first-child{color:#146c2e}</style>
</head><body>
<h1>Consumer coverage</h1>
<p>${report.covered} of ${report.total} behaviours seen.</p>
${sessionsHtml(report)}<h2>Client findings</h2>
${findings}
<h2>Behaviours</h2>
<table><thead><tr><th></th><th>Behaviour</th><th>Answers</th><th>Description</th></tr></thead><tbody>
${missingFirst.map(behaviourRow).join('\n')}
</tbody></table>
</body></html>
`;
}
