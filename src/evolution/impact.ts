/**
 * @module evolution/impact
 * Which client-breaking changes a consumer's tests were seen to depend on. Consumer coverage
 * (docs/coverage.md) names behaviours by operation and status (`getJob 200`), job state
 * (`job RUNNING`), evaluation, Error code and header (`getJob Retry-After`). A change is
 * `exercised` when a behaviour it touches was seen: the operation for a change to how it is
 * called, the status for a change to that answer's body, the header for a header. A change that
 * breaks no client has impact `none`, whatever the tests did.
 */
import type { CoverageInput, CoveredBehaviour } from './coverage-input.js';
import type { Change, DiffReport, Impact } from './types.js';

/** Body fields whose values the coverage catalogue counts as behaviours of their own. */
const valueFamilies: Readonly<Record<string, string>> = { status: 'job ', evaluation: 'evaluation ', code: 'error ' };

/** Most behaviours named as evidence for one change. */
const maxEvidence = 5;

export function withImpact(options: { report: DiffReport; coverage: CoverageInput; source: string }): DiffReport {
  const { report, coverage } = options;
  const seen = coverage.behaviours.filter((behaviour) => behaviour.covered);
  const changes = report.changes.map((change): Change => ({ ...change, impact: impactOf(change, seen) }));
  return {
    ...report,
    changes,
    counts: {
      ...report.counts,
      exercised: changes.filter((change) => change.impact?.level === 'exercised').length,
      unexercised: changes.filter((change) => change.impact?.level === 'unexercised').length,
    },
    coverage: { source: options.source, covered: coverage.covered, total: coverage.total },
  };
}

function impactOf(change: Change, seen: readonly CoveredBehaviour[]): Impact {
  if (!change.breaks.clients) return { level: 'none', evidence: [] };
  const evidence = [...new Set(evidenceFor(change, seen))].slice(0, maxEvidence);
  return { level: evidence.length > 0 ? 'exercised' : 'unexercised', evidence };
}

function evidenceFor(change: Change, seen: readonly CoveredBehaviour[]): string[] {
  const operation = change.operation?.operationId;
  const ids = (test: (behaviour: CoveredBehaviour) => boolean) => seen.filter(test).map((behaviour) => behaviour.id);
  // A change to the whole document (its base path, say) reaches every call the tests made.
  if (operation === undefined) return ids(() => true);
  const ofOperation = (behaviour: CoveredBehaviour) => behaviour.operationId === operation || behaviour.id.startsWith(`${operation} `);
  const status = (code: string) => ids((behaviour) => behaviour.id === `${operation} ${code}`);
  const subject = change.subject;
  switch (subject.kind) {
    case 'response-body': {
      const answers = subject.status === 'default' ? ids((b) => ofOperation(b) && /\s[45]\d\d$/.test(b.id)) : status(subject.status);
      const last =
        subject.field
          .split(/[.[\]]+/)
          .filter(Boolean)
          .pop() ?? '';
      const family = valueFamilies[last];
      const values = family ? ids((b) => b.id.startsWith(family) && (b.operationId === operation || b.operationId === '*')) : [];
      return [...answers, ...values];
    }
    case 'response-header': {
      const header = ids((b) => b.id.toLowerCase() === `${operation} ${subject.header}`.toLowerCase());
      return header.length > 0 ? header : status(subject.status);
    }
    case 'status':
      // A success answer taken away reaches the clients that got it; a new status reaches any caller.
      return change.rule === 'response-status-removed' ? status(subject.status) : ids(ofOperation);
    default:
      return ids(ofOperation);
  }
}
