/**
 * @module evolution/render/junit
 * The report as JUnit XML for CI test panels: one test case per change, failed when it is of a
 * kind `--fail-on` names (any breaking change when it is not given), so the panel shows what the
 * exit code is about. Every value goes through the one markup escaper.
 */
import { escapeMarkup } from '../../contract/markup.js';
import { type DiffReport, type FailOn, failsOn } from '../types.js';

export function renderJunit(report: DiffReport, options: { failOn?: FailOn } = {}): string {
  const failOn = options.failOn ?? 'any';
  const suite = escapeMarkup(`evidence-harness diff ${report.old.version} → ${report.new.version}`);
  const cases = report.changes.map((change) => {
    const name = escapeMarkup(`${change.location.document.toUpperCase()} ${change.location.pointer}`);
    const open = `    <testcase classname="${escapeMarkup(change.rule)}" name="${name}">`;
    if (!failsOn(change, failOn)) return `${open}<system-out>${escapeMarkup(change.message)}</system-out></testcase>`;
    const whom = [change.breaks.clients ? 'clients' : '', change.breaks.servers ? 'servers' : ''].filter(Boolean).join(' and ');
    return `${open}\n      <failure type="${escapeMarkup(change.rule)}" message="${escapeMarkup(`breaks ${whom}`)}">${escapeMarkup(change.message)}</failure>\n    </testcase>`;
  });
  if (cases.length === 0) cases.push('    <testcase classname="diff" name="no changes"></testcase>');
  const failures = report.changes.filter((change) => failsOn(change, failOn)).length;
  return `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="evidence-harness diff" tests="${Math.max(1, report.changes.length)}" failures="${failures}">
  <testsuite name="${suite}" tests="${Math.max(1, report.changes.length)}" failures="${failures}">
${cases.join('\n')}
  </testsuite>
</testsuites>
`;
}
