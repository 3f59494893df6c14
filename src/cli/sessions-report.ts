/**
 * @module cli/sessions-report
 * What the reports `mock` writes at exit say of the sessions they cover (docs/assumptions.md
 * one line for the text summary, and a table per session for the HTML page. Session
 * names are the header's charset (letters, digits, `._~-`), escaped all the same.
 */
import { escapeMarkup } from '../contract/markup.js';
import type { AllSessionsCoverage, ConsumerReport } from '../engine/index.js';

/** A coverage document, of one session or of all (`sessions` then says which). */
export type CoverageDocument = ConsumerReport & { readonly sessions?: AllSessionsCoverage['sessions'] };

/** How many sessions a report covers, and how many of them ended before: one line, or none for a one-session document. */
export function sessionsLine(report: CoverageDocument): string | undefined {
  const sessions = report.sessions;
  if (!sessions) return undefined;
  const ended = sessions.ended === 0 ? '' : `; ${sessions.ended} ended before exit (evicted or idle), folded in`;
  const listed = sessions.notListed === 0 ? '' : `; ${sessions.notListed} of those not listed one by one`;
  return `sessions: ${sessions.count} covered (the default one and every named session)${ended}${listed}`;
}

/** The per-session table of the HTML report; '' for a one-session document. */
export function sessionsHtml(report: CoverageDocument): string {
  const sessions = report.sessions;
  if (!sessions) return '';
  const rows = sessions.breakdown
    .map(
      (session) =>
        `<tr><td><code>${escapeMarkup(session.name)}</code></td><td>${escapeMarkup(session.state)}</td><td>${session.covered}</td><td>${escapeMarkup(
          session.behaviours.join(', '),
        )}</td><td>${session.clientFindings.reduce((sum, finding) => sum + finding.count, 0)}</td></tr>`,
    )
    .join('\n');
  return `<h2>Sessions</h2>
<p>${escapeMarkup(sessionsLine(report) ?? '')}.</p>
<table><thead><tr><th>Session</th><th>State</th><th>Behaviours seen</th><th>Which</th><th>Client findings</th></tr></thead><tbody>
${rows}
</tbody></table>
`;
}
