/**
 * @module proxy/proxy-report
 * The proxy's findings in the runner's report shape, so `--report junit=` and `--report html=`
 * render them with the runner's own reporters: one check per response check and per request
 * rule, failed when a violation names it, each violation a failure grouped as the runner groups
 * them (by check, operation and message), with the exchange it came from. The JSON report stays
 * the proxy's own (`violations` at the top, `side` on each).
 */
import { checks as registry } from '../conformance/checks/registry.js';
import { FailureGroups } from '../conformance/failures.js';
import type { CheckResult, ConformanceReport } from '../conformance/report/report.js';
import { packageVersion } from '../openapi/package-root.js';
import type { ProxyReport, Violation } from './proxy-server.js';
import { requestRules } from './request-rules.js';

export function asConformanceReport(options: {
  readonly report: ProxyReport;
  /** How many exchanges each check or rule judged. */
  readonly applied: ReadonlyMap<string, number>;
  readonly startedAt: number;
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
    ],
    settings: { upstream: report.upstream },
  };
}
