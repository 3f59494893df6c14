/**
 * @module conformance/checks/check
 * What a check is (STYLE 6): a named function with a one-line description and one signature,
 * `judge(exchange, context) → verdict`, marked required (the contract says so) or advisory (a
 * decision of docs/assumptions.md). Conditions many checks share are wrappers (STYLE 8), so a
 * check's body holds only its own rule.
 */
import type { ContractDocument, JsonSchema, OperationDescription } from '../../openapi/document.js';
import type { ResponseValidator } from '../../openapi/response-validator.js';
import type { Exchange, ExpectedRejection, IncompleteBody, Intent, IntentKind, ReceivedResponse } from '../exchange.js';
import { fail, pass, type Severity, skip, unjudged, type Verdict } from '../failures.js';
import type { SequenceFamily } from '../stateful/sequences.js';

/** The groups of requests the runner can send; a check names the ones it needs. */
export type ProbeName =
  | 'positive'
  | 'negative'
  | 'missing-header'
  | 'malformed-json'
  | 'media-type'
  | 'lifecycle'
  | 'replay'
  | 'reserialized-replay'
  | 'conflict'
  | 'isolation'
  | 'unknown-job'
  | 'verification'
  | 'oversized-body'
  | 'undeclared-method'
  | 'undeclared-path'
  | 'distinct-keys'
  | SequenceFamily
  | 'ignored-auth'
  | 'largest-body'
  | 'odd-strings'
  | 'path-characters'
  /** The steps of Arazzo workflows (--workflows). */
  | 'workflows'
  /** A pact's interactions (--pact), and the requests that set up their provider states. */
  | 'pact'
  /** --write-profile's learning phase: the questions a profile needs asked (src/conformance/profile/learning). */
  | 'learning';

/**
 * Every probe: what a check from --hooks needs, since it may judge any exchange. Not `learning`:
 * it runs for --write-profile alone (ConformanceOptions.learn).
 */
export const allProbes: readonly ProbeName[] = [
  'positive',
  'negative',
  'missing-header',
  'malformed-json',
  'media-type',
  'lifecycle',
  'replay',
  'reserialized-replay',
  'conflict',
  'isolation',
  'unknown-job',
  'verification',
  'oversized-body',
  'undeclared-method',
  'undeclared-path',
  'distinct-keys',
  'conflict-at-depth',
  'replay-after-final',
  'key-scope',
  'key-forms',
  'concurrent-duplicates',
  'concurrent-bodies',
  'refused-then-valid',
  'ignored-auth',
  'largest-body',
  'odd-strings',
  'path-characters',
  'workflows',
  'pact',
];

export interface CheckContext {
  readonly contract: ContractDocument;
  readonly validator: ResponseValidator;
  /** The operation of the spec the exchange targets, if any. */
  readonly operation?: OperationDescription;
  /** The schema every error body must match where no other is documented (components.schemas.Error). */
  readonly errorSchema?: JsonSchema;
  /** --max-response-time, in ms, when given (max_response_time runs only then). */
  readonly maxResponseTimeMs?: number;
}

export type Judge = (exchange: Exchange, context: CheckContext) => Verdict;

export interface Check {
  /** The CLI key and report label. */
  readonly name: string;
  /** One line, for --help and reports. */
  readonly description: string;
  readonly severity: Severity;
  /** The docs/assumptions.md entry behind the check, when it is one. */
  readonly assumption?: string;
  /** The probes whose requests this check judges (generic checks judge every exchange). */
  readonly probes: readonly ProbeName[];
  /**
   * It judges what only some servers show (a job read in each state, a 429, an answer a profile
   * declares): when every request it needs was sent and answered and none showed it, it has
   * nothing to judge, which is reported but does not make the run incomplete, unless it was
   * asked for by name (--checks).
   */
  readonly optionalEvidence?: boolean;
  /** Checks that must pass for this one to mean anything; when one fails, this one is skipped. */
  readonly requires?: readonly string[];
  readonly judge: Judge;
}

export type ExchangeWith<K extends IntentKind> = Exchange & { intent: Extract<Intent, { kind: K }> };
export type Answered = Exchange & { response: ReceivedResponse };

/** Applies the judge only to exchanges sent with one of `kinds` of intent. */
export function forIntent<K extends IntentKind>(
  kinds: readonly K[],
  judge: (exchange: ExchangeWith<K>, context: CheckContext) => Verdict,
): Judge {
  return (exchange, context) =>
    (kinds as readonly IntentKind[]).includes(exchange.intent.kind) ? judge(exchange as ExchangeWith<K>, context) : skip;
}

/** Skips exchanges without a whole answer (the check that owns the exchange's intent reports those). */
export function withResponse(judge: (exchange: Answered, context: CheckContext) => Verdict): Judge {
  return (exchange, context) => {
    if (!exchange.response) return unjudged('no answer came');
    if (exchange.response.incomplete) return unjudged(unusableAnswer(exchange.response.incomplete));
    return judge(exchange as Answered, context);
  };
}

/** Why an answer cannot be judged, in words that say what was wrong with it. */
function unusableAnswer(incomplete: IncompleteBody): string {
  // A refused shape or a protocol switch is not about the body being cut short.
  if (incomplete.reason === 'too-complex' || incomplete.reason === 'switched-protocols') return incomplete.message;
  return `the answer was not whole (${incomplete.message})`;
}

/** The title of a failure for an answer whose body is not whole. */
function incompleteTitle(incomplete: IncompleteBody): string {
  switch (incomplete.reason) {
    case 'too-large':
      return incomplete.message.replace(/ \(--max-response-bytes\)$/, '');
    case 'timeout':
      return 'body still arriving at the deadline';
    case 'closed':
      return 'connection closed mid-answer';
    case 'undecodable':
      return 'body could not be decoded';
    case 'too-complex':
      return incomplete.message;
    case 'switched-protocols':
      return 'server switched protocols (101)';
  }
}

/**
 * Fails an exchange without a whole answer: the request was sent to learn its answer, and none
 * came (or its body was over the cap, cut by the deadline or by the server).
 */
export function answered(expected: string, judge: (exchange: Answered, context: CheckContext) => Verdict): Judge {
  return (exchange, context) => {
    if (!exchange.response) return fail({ title: 'no answer', expected, received: exchange.transportError ?? 'no answer' });
    if (exchange.response.incomplete)
      return fail({ title: incompleteTitle(exchange.response.incomplete), expected, received: received(exchange) });
    return judge(exchange as Answered, context);
  };
}

/**
 * Skips an exchange still rate limited within its deadline (after one retry, or with a
 * Retry-After past the deadline): its answer says nothing about the input.
 */
export function unlessRateLimited(judge: Judge): Judge {
  return (exchange, context) =>
    exchange.rateLimited
      ? unjudged('still rate limited (429) within its --timeout (not_rate_limited judges it)')
      : judge(exchange, context);
}

/** Skips exchanges outside the spec's operations. */
export function onlyForOperation(
  judge: (exchange: Exchange, context: CheckContext & { operation: OperationDescription }) => Verdict,
): Judge {
  return (exchange, context) => (context.operation ? judge(exchange, context as CheckContext & { operation: OperationDescription }) : skip);
}

/** Skips answers whose body is not a JSON object that looks like a Job (has string jobId and status). */
export function onlyForJobBodies(judge: (exchange: Answered, job: Record<string, unknown>, context: CheckContext) => Verdict): Judge {
  return withResponse((exchange, context) => {
    const body = exchange.response.json;
    if (exchange.response.status >= 300 || !body || typeof body !== 'object' || Array.isArray(body)) return skip;
    const job = body as Record<string, unknown>;
    return typeof job.jobId === 'string' && typeof job.status === 'string' ? judge(exchange, job, context) : skip;
  });
}

/**
 * The judge the rejection checks share: the exchange's intent states the status due (400, 413,
 * a 4xx…); the answer meets it, or the check fails with `title` and what came back. Rate-limited
 * and unanswered exchanges are handled as everywhere else.
 */
export function rejectedAsExpected<K extends IntentKind>(
  kinds: readonly K[],
  title: (exchange: ExchangeWith<K>, status: number) => string,
): Judge {
  return forIntent(kinds, (exchange, context) => {
    const expected = (exchange.intent as { expected: ExpectedRejection }).expected;
    return unlessRateLimited(
      answered(describeExpected(expected), (answer) =>
        meetsExpectation(answer.response.status, expected)
          ? pass
          : fail({ title: title(exchange, answer.response.status), expected: describeExpected(expected), received: received(answer) }),
      ),
    )(exchange, context);
  });
}

/** The expected status in words: "400" or "a 4xx". */
export function expectedStatus(expected: ExpectedRejection): string {
  return expected.status === 'any-4xx' ? 'a 4xx' : String(expected.status);
}

export function describeExpected(expected: ExpectedRejection): string {
  return `${expectedStatus(expected)} (${expected.because})`;
}

export function meetsExpectation(status: number, expected: ExpectedRejection): boolean {
  return expected.status === 'any-4xx' ? status >= 400 && status < 500 : status === expected.status;
}

/** The answer as a short string for "received": status and the start of the body. */
export function received(exchange: Exchange): string {
  if (!exchange.response) return `no answer: ${exchange.transportError ?? 'unknown'}`;
  // Runs of whitespace are shown as one space: a body of 4 MB of spaces is "(only whitespace)", not a blank line.
  const body = exchange.response.bodyText.slice(0, 4096).replace(/\s+/g, ' ');
  const shown =
    body.trim() === ''
      ? exchange.response.bodyText
        ? '(only whitespace)'
        : '(empty body)'
      : body.length > 240
        ? `${body.slice(0, 240)}…`
        : body;
  const incomplete = exchange.response.incomplete;
  return incomplete
    ? `${exchange.response.status}, then ${incomplete.message}; it began: ${shown}`
    : `${exchange.response.status} ${shown}`.trim();
}
