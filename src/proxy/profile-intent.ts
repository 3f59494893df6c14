/**
 * @module proxy/profile-intent
 * The situation a client's own request was in, read from the request as the runner would have
 * sent it: a request breaking one rule of the contract gets the runner's intent for that
 * one problem (a malformed body, a missing Idempotency-Key, a value past a maxLength, a path
 * outside the contract…), so that the profile's one reading (observe.ts) learns and holds live
 * traffic as it learns and holds a conformance run. A request with two of the problems
 * A-7.precedence orders shows which the server judged first, as the learner's own pairs do; one
 * with more, or with another problem besides, shows no error entry.
 * The caller's credential left out, answered 401 or 403, shows A-10.without-credentials.
 */

import type { Intent } from '../conformance/exchange.js';
import { methodQuestions } from '../conformance/profile/observe-methods.js';
import { wellFormedCredentials } from '../contract/authorization.js';
import { bodyLimits } from '../contract/limits.js';
import type { OperationDescription } from '../openapi/document.js';
import { declaredCharset, duplicateMembers, hasNonAscii, isUtf8Charset } from '../profile/engine-strictness.js';
import { conditionsOf, constraintConditions } from '../profile/entry-parts.js';
import { orderedOperations, type ProblemName, problemNames } from '../profile/methods-vocabulary.js';
import type { RequestViolation, ViolationDetail } from './request-rules.js';

/** A value past a maximum: the conditions of A-2.over-maximum (413 where the operation documents one). */
const overMaximumConstraints: ReadonlySet<string> = new Set(conditionsOf['A-2.over-maximum']);

/** The constraint the runner's negative intents name for a JSON Schema keyword (`const` is a one-value enum); undefined for one they never break. */
function constraintOf(keyword: string): string | undefined {
  if (keyword === 'const') return 'enum';
  return (constraintConditions as readonly string[]).includes(keyword) ? keyword : undefined;
}

export interface ProfileIntentOptions {
  readonly method: string;
  readonly path: string;
  /** The request's headers as the client sent them (lower-case names). */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The whole body's size in bytes (more than was kept, for a body past the proxy's capture). */
  readonly bodyBytes: number;
  readonly operation?: OperationDescription;
  readonly violations: readonly RequestViolation[];
  /** The intent of a request the contract allows (traffic-state.ts): a create, a replay, a poll… */
  readonly validIntent: Intent;
  /** The header naming the caller (the profile's A-10.caller; Authorization without one). */
  readonly credentialHeader: string;
  /**
   * Whether a header carries credentials (the scrubber's list and --credential-header): a request
   * carrying one, whichever, is not one without credentials.
   */
  readonly isCredentialHeader?: (name: string) => boolean;
  /** The status the server answered: a 401 or 403 to a request without credentials is theirs. */
  readonly status: number;
  /** The request body's text (its duplicate members are read from it). */
  readonly body?: string;
  /** Whether a parsed body is valid against the operation's schema (a duplicate's other reading). */
  readonly bodyValid?: (value: unknown) => boolean;
  /** The scheme the caller's credential uses (the profile's A-10.caller): another is A-10.other-scheme's situation. */
  readonly callerScheme?: string;
}

const anyRejection = { status: 'any-4xx', because: 'a request a client sent' } as const;

function headerValue(headers: ProfileIntentOptions['headers'], name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** The runner's intent for a request with one problem, or undefined when it has several or none it names. */
function oneProblemIntent(options: ProfileIntentOptions, detail: ViolationDetail | undefined): Intent | undefined {
  if (!detail) return undefined;
  const { method, path } = options;
  switch (detail.kind) {
    case 'unknown-route':
      if (detail.emptyParameter !== undefined)
        return {
          kind: 'negative',
          location: 'path',
          pointer: detail.emptyParameter,
          constraint: 'minLength',
          overMaximum: false,
          description: `path ${detail.emptyParameter} empty`,
          expected: anyRejection,
        };
      // OPTIONS as the learner asks it (A-20.options): a CORS preflight is another question.
      if (detail.declaredMethods.length > 0 && method === 'OPTIONS')
        return headerValue(options.headers, 'access-control-request-method') === undefined
          ? { kind: 'learning', question: methodQuestions.options, detail: { path } }
          : undefined;
      if (detail.declaredMethods.length > 0) return method === 'HEAD' ? undefined : { kind: 'undeclared-method', method, path };
      return { kind: 'undeclared-path', path };
    case 'parameter': {
      const [constraint, ...others] = detail.constraints;
      if (constraint === undefined || others.length > 0) return undefined;
      if (constraint === 'required')
        return detail.location === 'header' ? { kind: 'missing-header', header: detail.name, expected: anyRejection } : undefined;
      return negative({ location: detail.location, pointer: detail.name, constraint, what: `${detail.location} ${detail.name}` });
    }
    case 'media-type':
      return {
        kind: 'media-type',
        ...(detail.contentType === undefined ? {} : { contentType: detail.contentType }),
        description: detail.contentType === undefined ? 'no Content-Type' : `Content-Type ${detail.contentType.slice(0, 80)}`,
        expected: anyRejection,
      };
    case 'json':
      return { kind: 'malformed-json', expected: anyRejection, description: 'a body that is not JSON' };
    case 'body': {
      // One constraint broken, maybe at several places (two required members missing); two
      // constraints (a value both too long and off its pattern) are the order's.
      const problem = detail.problems[0];
      if (problem === undefined || detail.problems.some((other) => other.constraint !== problem.constraint)) return undefined;
      const pointer = problem.pointer === '/' ? '' : problem.pointer;
      return negative({ location: 'body', pointer, constraint: problem.constraint, what: `body ${pointer || '(root)'}` });
    }
  }
}

function negative(options: {
  location: 'body' | 'header' | 'path';
  pointer: string;
  constraint: string;
  what: string;
}): Intent | undefined {
  const constraint = constraintOf(options.constraint);
  if (constraint === undefined) return undefined;
  return {
    kind: 'negative',
    location: options.location,
    pointer: options.pointer,
    constraint: constraint as Extract<Intent, { kind: 'negative' }>['constraint'],
    overMaximum: overMaximumConstraints.has(options.constraint),
    description: `${options.what} breaks ${options.constraint}`,
    expected: anyRejection,
  };
}

/** The contract's body limit of an operation, when it has one. */
function bodyLimitOf(operation: OperationDescription | undefined): number | undefined {
  if (operation?.operationId === 'createEvaluation') return bodyLimits.createEvaluationBytes;
  if (operation?.operationId === 'verifyReport') return bodyLimits.verifyReportBytes;
  return undefined;
}

/**
 * The intent the runner would have sent this request with. A request the contract allows keeps
 * its traffic intent; one breaking one rule gets that rule's; one breaking several is
 * `observed-invalid`, which shows no error entry.
 */
export function profileIntent(options: ProfileIntentOptions): Intent {
  const { violations, status } = options;
  const limit = bodyLimitOf(options.operation);
  const overLimit = limit !== undefined && options.bodyBytes > limit;
  if ((status === 401 || status === 403) && !carriesCredentials(options))
    return {
      kind: 'without-credentials',
      description: `a request without ${options.credentialHeader}`,
      removed: [options.credentialHeader],
      answer: { status: 0, bodyDigest: '' },
    };
  const oddity = oddityIntent(options);
  if (oddity) return oddity;
  const problems = problemsOf(violations, overLimit);
  if (
    problems.named.length === 2 &&
    !problems.other &&
    (orderedOperations as readonly string[]).includes(options.operation?.operationId ?? '')
  ) {
    const [first, second] = problems.named as [ProblemName, ProblemName];
    return { kind: 'learning', question: methodQuestions.precedence, detail: { first, second } };
  }
  if (overLimit)
    return violations.length === 0
      ? { kind: 'oversized-body', bytes: options.bodyBytes, expected: anyRejection }
      : observedInvalid(violations);
  // HEAD of a GET operation (matched as its GET) as the learner asks it (A-20.head).
  if (options.method === 'HEAD' && options.operation?.method === 'get')
    return { kind: 'learning', question: methodQuestions.head, detail: { path: options.path } };
  if (violations.length === 0) return readIntent(options);
  const named = violations.length === 1 ? oneProblemIntent(options, violations[0]!.detail) : undefined;
  return named ?? observedInvalid(violations);
}

/**
 * A request the contract allows but for one oddity the learner asks about on its own (A-21's and
 * A-16's strictness, A-10's credential outcomes): a JSON body declaring another charset than
 * UTF-8, an Idempotency-Key outside ASCII, a member named twice whose two readings differ (one
 * valid, one not), an Authorization that is not credentials by RFC 9110's syntax, or of another
 * scheme than the caller's.
 */
function oddityIntent(options: ProfileIntentOptions): Intent | undefined {
  const { violations } = options;
  const onlyBody = violations.length === 1 && violations[0]!.detail?.kind === 'body';
  if (violations.length > 0 && !onlyBody) return undefined;
  if (options.body !== undefined && options.bodyValid && options.operation?.requestBody && readWhole(options)) {
    const duplicates = scannedForDuplicates(options.body);
    if (duplicates?.first !== undefined) {
      const lastValid = violations.length === 0;
      let firstValid = false;
      try {
        firstValid = options.bodyValid(JSON.parse(duplicates.firstWins()));
      } catch {
        firstValid = false;
      }
      // Both readings valid (or both not): the answer tells nothing of which member is read.
      if (firstValid === lastValid) return undefined;
      const variant = firstValid ? 'first-valid' : 'last-valid';
      const name = duplicates.first.slice(0, 40);
      return {
        kind: 'learning',
        question: methodQuestions.duplicateMembers,
        detail: { variant, sent: `'${name}' twice, the valid value ${firstValid ? 'first' : 'last'}` },
      };
    }
  }
  if (violations.length > 0) return undefined;
  const contentType = headerValue(options.headers, 'content-type');
  const charset = options.operation?.requestBody ? declaredCharset(contentType ?? null) : undefined;
  if (charset !== undefined && !isUtf8Charset(charset))
    return { kind: 'learning', question: methodQuestions.charset, detail: { sent: `charset=${charset.slice(0, 40)}` } };
  const key = headerValue(options.headers, 'idempotency-key');
  if (key !== undefined && hasNonAscii(key))
    return { kind: 'learning', question: methodQuestions.nonAsciiKey, detail: { sent: 'an Idempotency-Key outside ASCII' } };
  return credentialOddity(options);
}

/** The body was kept whole and parsed (a body past the proxy's capture, or one that is no JSON, is not scanned). */
function readWhole(options: ProfileIntentOptions): boolean {
  return (
    options.body !== undefined &&
    Buffer.byteLength(options.body) >= options.bodyBytes &&
    !options.violations.some((violation) => violation.detail?.kind === 'json' || violation.detail?.kind === 'media-type')
  );
}

/** The duplicate members of a JSON text; undefined for a text the scan cannot read (it expects well-formed JSON). */
function scannedForDuplicates(text: string): ReturnType<typeof duplicateMembers> | undefined {
  try {
    return duplicateMembers(text);
  } catch {
    return undefined;
  }
}

/** A malformed Authorization, or one of another scheme than the caller's. */
function credentialOddity(options: ProfileIntentOptions): Intent | undefined {
  if (options.credentialHeader.toLowerCase() !== 'authorization') return undefined;
  const value = headerValue(options.headers, 'authorization');
  if (value === undefined || value === '') return undefined;
  if (!wellFormedCredentials(value))
    return { kind: 'learning', question: 'malformed-credentials', detail: { sent: 'an Authorization that is not credentials' } };
  const scheme = options.callerScheme;
  const sent = value.split(' ')[0] ?? '';
  if (scheme !== undefined && scheme !== 'any' && scheme !== 'custom' && sent.toLowerCase() !== scheme.toLowerCase())
    return { kind: 'learning', question: 'other-scheme', detail: { sent: `a credential of scheme ${sent.slice(0, 20)}` } };
  return undefined;
}

function observedInvalid(violations: readonly RequestViolation[]): Intent {
  return { kind: 'observed-invalid', description: violations.map((violation) => violation.check).join(', ') || 'a body over its limit' };
}

/**
 * The problems of A-7.precedence a request has (a body past the operation's limit among them),
 * in the register's order, and whether it has another (an invalid jobId), which no order names.
 */
function problemsOf(violations: readonly RequestViolation[], overLimit: boolean): { named: ProblemName[]; other: boolean } {
  const found = new Set<ProblemName | 'other'>(overLimit ? ['body-too-large'] : []);
  for (const { detail } of violations) {
    if (detail?.kind === 'media-type') found.add('media-type');
    else if (detail?.kind === 'json') found.add('malformed-json');
    else if (detail?.kind === 'parameter' && detail.location === 'header' && detail.name.toLowerCase() === 'idempotency-key')
      found.add('missing-key');
    else if (detail?.kind === 'body')
      for (const problem of detail.problems)
        found.add(
          (problem.pointer === '/' || problem.pointer === '') && problem.constraint === 'type'
            ? 'not-an-object'
            : overMaximumConstraints.has(problem.constraint)
              ? 'over-maximum'
              : 'invalid-request',
        );
    else found.add('other');
  }
  return { named: problemNames.filter((name) => found.has(name)), other: found.has('other') };
}

/** Headers that carry credentials but name no caller: a cookie holds many things, a proxy's credential is the proxy's. */
export const notCallerHeaders: ReadonlySet<string> = new Set(['cookie', 'set-cookie', 'proxy-authorization']);

/** The request carries the caller's header, or another credential header, with a value. */
function carriesCredentials(options: ProfileIntentOptions): boolean {
  const value = headerValue(options.headers, options.credentialHeader);
  if (value !== undefined && value.trim() !== '') return true;
  const isCredential = options.isCredentialHeader;
  if (!isCredential) return false;
  return Object.entries(options.headers).some(
    ([name, raw]) =>
      !notCallerHeaders.has(name.toLowerCase()) &&
      isCredential(name.toLowerCase()) &&
      raw !== undefined &&
      (Array.isArray(raw) ? raw.join('') : raw).trim() !== '',
  );
}

/**
 * What a request the contract allows reads, where traffic says more than its traffic intent: a
 * read of a job the traffic never saw created is the runner's unknown job (its error answer shows
 * A-10.unknown-job; an answer with the job, one created before the traffic began, shows no error
 * entry), and a health read is the runner's preflight (A-9.health).
 */
function readIntent(options: ProfileIntentOptions): Intent {
  const intent = options.validIntent;
  if (intent.kind !== 'positive') return intent;
  if (options.operation?.operationId === 'getJob') return { kind: 'unknown-job' };
  if (options.operation?.operationId === 'health' && options.method === 'GET') return { kind: 'preflight' };
  return intent;
}
