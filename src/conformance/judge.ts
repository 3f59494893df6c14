/**
 * @module conformance/judge
 * Applies the selected checks to the recorded exchanges and turns their verdicts into check
 * results: failures grouped (one entry per check, operation and title, with a count), a check
 * whose prerequisite failed marked skipped, and a reason for every check that judged nothing.
 */
import type { ContractDocument, JsonSchema } from '../openapi/document.js';
import type { ResponseValidator } from '../openapi/response-validator.js';
import type { Check, CheckContext } from './checks/check.js';
import type { Exchange, Intent } from './exchange.js';
import type { Failure, Verdict } from './failures.js';
import { toCurl } from './http/curl.js';
import type { CheckResult } from './report/report.js';

export interface JudgeSetting {
  readonly contract: ContractDocument;
  readonly validator: ResponseValidator;
  readonly checks: readonly Check[];
  /** Header names whose values are redacted in reproductions. */
  readonly secretHeaders: readonly string[];
}

export function contextFor(exchange: Exchange, setting: JudgeSetting): CheckContext {
  const operation = exchange.operationId
    ? setting.contract.operations.find((candidate) => candidate.operationId === exchange.operationId)
    : undefined;
  const errorSchema = setting.contract.schemas.Error as JsonSchema | undefined;
  return {
    contract: setting.contract,
    validator: setting.validator,
    ...(operation ? { operation } : {}),
    ...(errorSchema ? { errorSchema } : {}),
  };
}

/** Each selected check's verdict on one exchange. */
export function verdictsOn(exchange: Exchange, setting: JudgeSetting): { check: Check; verdict: Verdict }[] {
  const context = contextFor(exchange, setting);
  return setting.checks.map((check) => ({ check, verdict: check.judge(exchange, context) }));
}

/** What the request was for, in a few words. */
export function describeIntent(intent: Intent): string {
  switch (intent.kind) {
    case 'positive':
      return `valid input (${intent.source}): ${intent.description}`;
    case 'create':
      return `create a job for the ${intent.purpose} check`;
    case 'negative':
      return `invalid input: ${intent.description}`;
    case 'missing-header':
      return `valid request without the ${intent.header} header`;
    case 'malformed-json':
      return 'a truncated JSON body';
    case 'read-created':
      return `first read of job ${intent.jobId}, just created`;
    case 'poll':
      return `poll of job ${intent.jobId} after ${intent.history.map((seen) => seen.status).join(' → ') || 'nothing'}`;
    case 'replay':
      return `the same request again with the same Idempotency-Key (job ${intent.jobId})`;
    case 'reserialized-replay':
      return `an equal body re-serialised, same Idempotency-Key (job ${intent.jobId})`;
    case 'conflict':
      return `the Idempotency-Key of job ${intent.jobId} with a different body`;
    case 'second-caller':
      return `the second caller reads job ${intent.jobId}, created by the first`;
    case 'unknown-job':
      return 'read a jobId no job has';
    case 'verification-example':
      return `verifyReport with ${intent.description}`;
    case 'oversized-body':
      return `a body of ${intent.bytes} bytes`;
    case 'undeclared-method':
      return `${intent.method} on ${intent.path}, which does not declare it`;
    case 'undeclared-path':
      return `GET ${intent.path}, outside the contract`;
    case 'preflight':
      return 'reachability check before the run';
  }
}

function operationLabel(exchange: Exchange): string {
  if (exchange.operationId) return exchange.operationId;
  return `${exchange.request.method} ${new URL(exchange.request.url).pathname}`;
}

export function judgeRun(options: {
  exchanges: readonly Exchange[];
  setting: JudgeSetting;
  notesFor: (check: Check) => string | undefined;
}): CheckResult[] {
  const { exchanges, setting } = options;
  const tallies = new Map(setting.checks.map((check) => [check.name, { applied: 0, failed: 0, groups: new Map<string, Failure>() }]));
  for (const exchange of exchanges) {
    for (const { check, verdict } of verdictsOn(exchange, setting)) {
      if (verdict.outcome === 'skip') continue;
      const tally = tallies.get(check.name)!;
      tally.applied += 1;
      if (verdict.outcome === 'pass') continue;
      tally.failed += 1;
      const operation = operationLabel(exchange);
      const key = `${operation}\n${verdict.title}`;
      const existing = tally.groups.get(key);
      if (existing) {
        tally.groups.set(key, { ...existing, occurrences: existing.occurrences + 1 });
        continue;
      }
      tally.groups.set(key, {
        check: check.name,
        severity: check.severity,
        operation,
        title: verdict.title,
        expected: verdict.expected,
        received: verdict.received,
        input: describeIntent(exchange.intent) + (exchange.notes.length > 0 ? ` [${exchange.notes.join('; ')}]` : ''),
        curl: toCurl(exchange.request, { secretHeaders: setting.secretHeaders }),
        exchange: exchange.id,
        occurrences: 1,
      });
    }
  }
  const results = setting.checks.map((check): CheckResult => {
    const tally = tallies.get(check.name)!;
    const failures = [...tally.groups.values()];
    const base = {
      name: check.name,
      description: check.description,
      severity: check.severity,
      ...(check.assumption ? { assumption: check.assumption } : {}),
      applied: tally.applied,
      failedExchanges: tally.failed,
    };
    if (tally.applied === 0) {
      return { ...base, status: 'skipped', note: options.notesFor(check) ?? 'no request of its kind was sent', failures: [] };
    }
    return { ...base, status: failures.length > 0 ? 'failed' : 'passed', failures };
  });
  // A check whose prerequisite failed says nothing new: report the prerequisite only.
  const failedNames = new Set(results.filter((result) => result.status === 'failed').map((result) => result.name));
  return results.map((result) => {
    const prerequisite = setting.checks.find((check) => check.name === result.name)?.requires?.find((name) => failedNames.has(name));
    if (!prerequisite || result.status !== 'failed') return result;
    return {
      ...result,
      status: 'skipped',
      note: `${prerequisite} failed; ${result.failures.length} failure(s) here not reported`,
      failures: [],
    };
  });
}
