/**
 * @module proxy/proxy-report
 * The proxy's findings in the runner's report shape, so `--report junit=` and `--report html=`
 * render them with the runner's own reporters: one check per response check and per request
 * rule, failed when a violation names it, each violation a failure grouped as the runner groups
 * them (by check, operation and message), with the exchange it came from. With a profile, each
 * entry the drift watcher holds the traffic to is one more check, `profile:ENTRY` as the runner
 * names it, failed by its one drift finding (A-68). The JSON report stays the proxy's own
 * (`violations` at the top, `side` on each, `drift` beside them).
 */
import { checks as registry } from '../conformance/checks/registry.js';
import { FailureGroups } from '../conformance/failures.js';
import type { CheckResult, ConformanceReport } from '../conformance/report/report.js';
import { packageVersion } from '../openapi/package-root.js';
import type { EntryName } from '../profile/entries.js';
import type { DriftFinding } from './profile-drift.js';
import type { ProxyReport, Violation } from './proxy-server.js';
import { requestRules } from './request-rules.js';

export function asConformanceReport(options: {
  readonly report: ProxyReport;
  /** How many exchanges each check or rule judged. */
  readonly applied: ReadonlyMap<string, number>;
  readonly startedAt: number;
  /** With a profile: the entries the traffic was held to, and how many exchanges each was judged on. */
  readonly drift?: { readonly watched: readonly EntryName[]; readonly judged: ReadonlyMap<EntryName, number> };
}): ConformanceReport {
  const { report, applied } = options;
  const byCheck = new Map<string, Violation[]>();
  for (const violation of report.violations) byCheck.set(violation.check, [...(byCheck.get(violation.check) ?? []), violation]);
  const result = (entry: { name: string; description: string; severity: 'required' | 'advisory'; assumption?: string }): CheckResult => {
    const found = byCheck.get(entry.name) ?? [];
    const judged = Math.max(applied.get(entry.name) ?? 0, found.length);
    const groups = new FailureGroups();
    for (const violation of found) {
      const operation = violation.operationId ?? '(outside the contract)';
      groups.add({ check: entry.name, operation, title: violation.message }, () => ({
        check: entry.name,
        severity: entry.severity,
        operation,
        title: violation.message,
        expected: violation.side === 'request' ? 'a request the contract allows' : 'an answer the contract allows',
        received: `exchange ${violation.exchange} through the proxy (${violation.side} side)`,
        input: `${violation.side === 'request' ? "the client's request" : "the upstream's answer"}, exchange ${violation.exchange}`,
        curl: '(recorded traffic: see the HAR cassette, --record)',
        exchange: violation.exchange,
      }));
    }
    return {
      name: entry.name,
      description: entry.description,
      severity: entry.severity,
      ...(entry.assumption ? { assumption: entry.assumption } : {}),
      status: found.length > 0 ? 'failed' : judged > 0 ? 'passed' : 'skipped',
      applied: judged,
      failedExchanges: found.length,
      ...(found.length === 0 && judged === 0 ? { note: 'no exchange through the proxy gave it anything to judge' } : {}),
      failures: groups.list(),
    };
  };
  const checks: CheckResult[] = [
    ...Object.entries(requestRules).map(([name, description]) =>
      result({ name, description: `(request) ${description}`, severity: 'required' }),
    ),
    ...registry.map((check) =>
      result({
        name: check.name,
        description: check.description,
        severity: check.severity,
        ...(check.assumption ? { assumption: check.assumption } : {}),
      }),
    ),
    ...(options.drift ? driftChecks({ ...options.drift, findings: report.drift ?? [], profile: report.profile ?? 'the profile' }) : []),
  ];
  const failed = checks.some((check) => check.status === 'failed' && check.severity === 'required');
  return {
    tool: 'evidence-harness proxy',
    version: packageVersion(),
    target: report.upstream,
    spec: report.spec,
    seed: 0,
    runId: 'proxy',
    startedAt: new Date(options.startedAt).toISOString(),
    durationMs: Date.now() - options.startedAt,
    requests: report.exchanges,
    maxRequests: report.exchanges,
    requestsNotSent: 0,
    strict: false,
    verdict: failed ? 'failed' : 'passed',
    exitCode: failed ? 1 : 0,
    incomplete: [],
    passed: !failed,
    checks,
    notes: [
      `${report.exchanges} exchanges judged passively through the proxy; a check no exchange reached is skipped, not failed.`,
      ...(report.injected > 0 ? [`${report.injected} answers were injected by the scenario and not judged.`] : []),
      ...(report.driftCount !== undefined
        ? [
            `${report.driftCount} exchanges drifted from the profile ${report.profile}: each profile: check is one entry held to the traffic.`,
          ]
        : []),
    ],
    settings: { upstream: report.upstream },
  };
}

/** One check per entry the traffic was held to: failed by its drift finding, passed when judged without one. */
function driftChecks(options: {
  readonly watched: readonly EntryName[];
  readonly judged: ReadonlyMap<EntryName, number>;
  readonly findings: readonly DriftFinding[];
  readonly profile: string;
}): CheckResult[] {
  return options.watched.map((entry) => {
    const name = `profile:${entry}`;
    const finding = options.findings.find((candidate) => candidate.entry === entry);
    const judged = Math.max(options.judged.get(entry) ?? 0, finding?.count ?? 0);
    return {
      name,
      description: `the upstream answers as the profile declares (${entry}); a departure is drift`,
      severity: 'required',
      assumption: entry.split('.')[0]!,
      status: finding ? 'failed' : judged > 0 ? 'passed' : 'skipped',
      applied: judged,
      failedExchanges: finding?.count ?? 0,
      ...(!finding && judged === 0 ? { note: 'no exchange through the proxy showed this entry' } : {}),
      failures: finding
        ? [
            {
              check: name,
              severity: 'required',
              operation: finding.operation,
              title: `${entry}: ${finding.problem}`,
              expected: `${finding.expected} (the profile ${options.profile})`,
              received: `${finding.seen}${finding.lastSeen ? `; last: ${finding.lastSeen}` : ''} (${finding.count} exchange(s) drifted)`,
              input: `the client's request, exchange ${finding.exchange}`,
              curl: finding.request,
              exchange: finding.exchange,
              occurrences: finding.count,
            },
          ]
        : [],
    };
  });
}
