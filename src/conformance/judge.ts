/**
 * @module conformance/judge
 * Applies the selected checks to the recorded exchanges and turns their verdicts into check
 * results: failures grouped (one entry per check, operation and title, with a count, in the
 * reports' one order), a check whose prerequisite failed marked skipped, and a reason for every
 * check that judged nothing.
 */
import type { ContractDocument, JsonSchema } from '../openapi/document.js';
import type { ResponseValidator } from '../openapi/response-validator.js';
import type { Check, CheckContext } from './checks/check.js';
import { condensedHistory, type Exchange, type Intent, quoted, type SequenceLine, type SequenceRequest } from './exchange.js';
import { FailureGroups, type ReplayableRequest, type Verdict } from './failures.js';
import type { CheckResult } from './report/report.js';
import type { BurstOutcome } from './stateful/model.js';
import { sequenceCommand } from './stateful/sequence-lines.js';

export interface JudgeSetting {
  readonly contract: ContractDocument;
  readonly validator: ResponseValidator;
  readonly checks: readonly Check[];
  /** The curl command that reproduces an exchange (credentials read from the environment). */
  readonly reproduce: (exchange: Pick<Exchange, 'id' | 'caller' | 'request'>) => string;
  /** --max-response-time, in ms, for max_response_time. */
  readonly maxResponseTimeMs?: number;
  /** The failing request as `conformance replay` sends it again, when it can go on its own. */
  readonly replayable?: (exchange: Exchange) => ReplayableRequest | undefined;
}

export function contextFor(
  exchange: Exchange,
  setting: Pick<JudgeSetting, 'contract' | 'validator'> & { maxResponseTimeMs?: number | undefined },
): CheckContext {
  const operation = exchange.operationId
    ? setting.contract.operations.find((candidate) => candidate.operationId === exchange.operationId)
    : undefined;
  const errorSchema = setting.contract.schemas.Error as JsonSchema | undefined;
  return {
    contract: setting.contract,
    validator: setting.validator,
    ...(operation ? { operation } : {}),
    ...(errorSchema ? { errorSchema } : {}),
    ...(setting.maxResponseTimeMs === undefined ? {} : { maxResponseTimeMs: setting.maxResponseTimeMs }),
  };
}

/** Each selected check's verdict on one exchange. */
export function verdictsOn(
  exchange: Exchange,
  setting: Pick<JudgeSetting, 'contract' | 'validator' | 'checks'>,
): { check: Check; verdict: Verdict }[] {
  const context = contextFor(exchange, setting);
  return setting.checks.map((check) => ({ check, verdict: safeVerdict(check, exchange, context) }));
}

/** What the request was for, in a few words. */
export function describeIntent(intent: Intent): string {
  switch (intent.kind) {
    case 'positive':
      return `valid input (${intent.source}): ${intent.description}`;
    case 'observed-invalid':
      return `a client's request through the proxy, against the contract: ${intent.description}`;
    case 'create':
      return intent.distinctFrom
        ? `create a job under a new Idempotency-Key, after job ${quoted(intent.distinctFrom)} was created under another`
        : `create a job for the ${intent.purpose} check`;
    case 'negative':
      return `invalid input: ${intent.description}`;
    case 'missing-header':
      return `valid request without the ${intent.header} header`;
    case 'malformed-json':
      return intent.description ?? 'a truncated JSON body';
    case 'media-type':
      return `a valid JSON body sent with ${intent.description}`;
    case 'read-created':
      return `first read of job ${quoted(intent.jobId)}, just created`;
    case 'poll':
      return `poll of job ${quoted(intent.jobId)} after ${condensedHistory(intent.history)}`;
    case 'replay':
      return `the same request again with the same Idempotency-Key (job ${quoted(intent.jobId)})`;
    case 'reserialized-replay':
      return `an equal body re-serialised, same Idempotency-Key (job ${quoted(intent.jobId)})`;
    case 'conflict':
      return `the Idempotency-Key of job ${quoted(intent.jobId)} with a different body`;
    case 'sequence-step':
      return `${intent.description}: step ${intent.step} of the sequence '${intent.sequence}'${intent.shrinking ? ` (${intent.shrinking})` : ''}`;
    case 'sequence-poll':
      return `poll of job ${quoted(intent.jobId)}: step ${intent.step} of the sequence '${intent.sequence}'`;
    case 'second-caller':
      return `the second caller reads job ${quoted(intent.jobId)}, created by the first`;
    case 'unknown-job':
      return intent.description ? `read a jobId no job has, with ${intent.description}` : 'read a jobId no job has';
    case 'verification-example':
      return `verifyReport with ${intent.description}`;
    case 'pact':
      return `pact interaction '${quoted(intent.interaction)}'${intent.states.length > 0 ? `, given ${intent.states.map((state) => `'${quoted(state)}'`).join(' and ')}` : ''}`;
    case 'pact-state':
      return `provider state '${quoted(intent.state)}' of the pact interaction '${quoted(intent.interaction)}': ${intent.step}`;
    case 'oversized-body':
      return `a body of ${intent.bytes} bytes`;
    case 'undeclared-method':
      return `${intent.method} on ${quoted(intent.path)}, which does not declare it`;
    case 'undeclared-path':
      return `GET ${quoted(intent.path)}, outside the contract`;
    case 'preflight':
      return 'reachability check before the run';
    case 'workflow-step':
      return `step '${intent.step}' of workflow '${intent.workflow}'${intent.attempt > 1 ? ` (attempt ${intent.attempt})` : ''}`;
    case 'without-credentials':
      return `${intent.description}, sent again without ${intent.removed.join(', ')}`;
    case 'learning':
      return `learning the server's profile: ${intent.question}`;
  }
}

function operationLabel(exchange: Exchange): string {
  if (exchange.operationId) return exchange.operationId;
  return `${exchange.request.method} ${new URL(exchange.request.url).pathname}`;
}

interface Tally {
  applied: number;
  failed: number;
  readonly groups: FailureGroups;
  /** Why exchanges the check applies to could not be judged, with counts. */
  readonly unjudged: Map<string, number>;
}

/** Each check's verdict on one exchange; a check that throws is reported as unable to judge it. */
function safeVerdict(check: Check, exchange: Exchange, context: CheckContext): Verdict {
  // An answer to a request without credentials is outside what the contract shows (A-10): a
  // 401 from a gateway need match no schema, so only the checks of that probe judge it.
  if (exchange.intent.kind === 'without-credentials' && !check.probes.includes('ignored-auth')) return { outcome: 'skip' };
  try {
    return check.judge(exchange, context);
  } catch (error) {
    return { outcome: 'skip', reason: `the check could not judge the answer (${(error as Error).message})` };
  }
}

/**
 * Judges exchanges as they are recorded, keeping only the tallies and the first failure of each
 * group, so a run holds no answer body after judging it (whatever size the server sends).
 */
export class Judging {
  private readonly tallies: Map<string, Tally>;

  constructor(private readonly setting: JudgeSetting) {
    this.tallies = new Map(
      setting.checks.map((check) => [check.name, { applied: 0, failed: 0, groups: new FailureGroups(), unjudged: new Map() }]),
    );
  }

  /** A failing sequence as shell lines, in order: the steps before the failing one, then it. */
  private sequenceOf(
    exchange: Exchange,
    earlier: readonly SequenceLine[],
    burst: BurstOutcome | undefined,
    together: readonly SequenceRequest[] | undefined,
  ): string[] {
    const reproduce = (requests: readonly SequenceRequest[] | undefined) => requests?.map((request) => this.setting.reproduce(request));
    return [
      ...earlier.map((line) =>
        sequenceCommand(this.setting.reproduce(line), line.repeat, {
          ...(line.together ? { together: reproduce(line.together)! } : {}),
          ...(line.thenWaitMs ? { thenWaitMs: line.thenWaitMs } : {}),
        }),
      ),
      sequenceCommand(
        this.setting.reproduce(exchange),
        burst && !together ? { how: 'at-once', times: burst.size } : undefined,
        together ? { together: reproduce(together)! } : {},
      ),
    ];
  }

  /** Judges one exchange; returns the checks it fails. */
  add(exchange: Exchange): Check[] {
    const context = contextFor(exchange, this.setting);
    const failed: Check[] = [];
    for (const check of this.setting.checks) {
      const verdict = safeVerdict(check, exchange, context);
      const tally = this.tallies.get(check.name)!;
      if (verdict.outcome === 'skip') {
        if (verdict.reason) tally.unjudged.set(verdict.reason, (tally.unjudged.get(verdict.reason) ?? 0) + 1);
        continue;
      }
      tally.applied += 1;
      if (verdict.outcome === 'pass') continue;
      tally.failed += 1;
      failed.push(check);
      const operation = operationLabel(exchange);
      // Built for the first failure of its kind only: its curl line may write a body file.
      tally.groups.add({ check: check.name, operation, title: verdict.title }, () => ({
        check: check.name,
        severity: check.severity,
        operation,
        title: verdict.title,
        expected: verdict.expected,
        received: verdict.received,
        input: describeIntent(exchange.intent) + (exchange.notes.length > 0 ? ` [${exchange.notes.join('; ')}]` : ''),
        curl: this.setting.reproduce(exchange),
        ...(exchange.intent.kind === 'sequence-step' && exchange.intent.earlier
          ? { sequence: this.sequenceOf(exchange, exchange.intent.earlier, exchange.intent.burst, exchange.intent.together) }
          : {}),
        ...(exchange.intent.kind === 'workflow-step' && exchange.intent.earlier?.length
          ? { sequence: this.sequenceOf(exchange, exchange.intent.earlier, undefined, undefined) }
          : {}),
        exchange: exchange.id,
        ...replayField(this.setting.replayable?.(exchange)),
      }));
    }
    return failed;
  }

  /**
   * The checks' results. `whyNothing` says why a check judged nothing when no exchange does;
   * `whyPartly` says which requests a check would have judged were not sent. A check that judged
   * some exchanges and failed none, but did not get all its requests, is not passed: it is
   * skipped, saying what it judged and what was not sent, so the run cannot pass on it.
   */
  results(reasons: {
    whyNothing: (check: Check, seen: { unjudged: number }) => string | undefined;
    whyPartly?: (check: Check) => string | undefined;
  }): CheckResult[] {
    const results = this.setting.checks.map((check): CheckResult => {
      const tally = this.tallies.get(check.name)!;
      const failures = tally.groups.list();
      const base = {
        name: check.name,
        description: check.description,
        severity: check.severity,
        ...(check.assumption ? { assumption: check.assumption } : {}),
        applied: tally.applied,
        failedExchanges: tally.failed,
      };
      if (tally.applied === 0) {
        const unjudged = [...tally.unjudged].map(([reason, count]) => `${count} request${count === 1 ? '' : 's'}: ${reason}`);
        const why = unjudged.length > 0 ? `sent, but none could be judged (${unjudged.join('; ')})` : undefined;
        const note =
          [why, reasons.whyNothing(check, { unjudged: tally.unjudged.size })].filter(Boolean).join('; ') ||
          'no request of its kind was sent';
        return { ...base, status: 'skipped', note, failures: [] };
      }
      if (failures.length > 0) return { ...base, status: 'failed', failures };
      const partly = reasons.whyPartly?.(check);
      if (partly) {
        const judged = `${tally.applied} exchange${tally.applied === 1 ? '' : 's'}`;
        return { ...base, status: 'skipped', note: `ran only in part: judged ${judged}, none failing; ${partly}`, failures: [] };
      }
      return { ...base, status: 'passed', failures };
    });
    // A check whose prerequisite failed says nothing new: report the prerequisite only.
    const failedNames = new Set(results.filter((result) => result.status === 'failed').map((result) => result.name));
    return results.map((result) => {
      const prerequisite = this.setting.checks.find((check) => check.name === result.name)?.requires?.find((name) => failedNames.has(name));
      if (!prerequisite || result.status !== 'failed') return result;
      return {
        ...result,
        status: 'skipped',
        note: `${prerequisite} failed; ${result.failures.length} failure(s) here not reported`,
        failures: [],
      };
    });
  }
}

function replayField(replay: ReplayableRequest | undefined): { replay?: ReplayableRequest } {
  return replay ? { replay } : {};
}

/** Judges a whole list of exchanges at once (tests, and callers holding a recorded run). */
export function judgeRun(options: {
  exchanges: readonly Exchange[];
  setting: JudgeSetting;
  notesFor: (check: Check, seen: { unjudged: number }) => string | undefined;
}): CheckResult[] {
  const judging = new Judging(options.setting);
  for (const exchange of options.exchanges) judging.add(exchange);
  return judging.results({ whyNothing: options.notesFor });
}
