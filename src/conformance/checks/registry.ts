/**
 * @module conformance/checks/registry
 * The one list of checks. A check's name is its CLI key (--checks, --exclude-checks), its
 * report label and its JUnit test name; the order here is the order of --help and reports.
 */
import { ignoredAuth, undeclaredMethodRejected, undeclaredPathNotFound } from './assumption-checks.js';
import type { Check } from './check.js';
import {
  invalidJobIdNotFound,
  malformedJsonRejected,
  missingRequiredHeader,
  negativeDataRejection,
  oversizedBodyRejected,
  positiveDataAcceptance,
  unsupportedMediaTypeRejected,
} from './data-checks.js';
import {
  contentTypeDocumented,
  errorBody,
  errorCodeDocumented,
  maxResponseTime,
  notAServerError,
  notRateLimited,
  responseSchemaConformance,
  statusCodeDocumented,
} from './generic-checks.js';
import { responseHeadersConformance } from './header-checks.js';
import {
  concurrentBodiesOneAccepted,
  concurrentDuplicatesOneJob,
  keyScopedToCaller,
  keysComparedExactly,
  refusedRequestFreesKey,
  replayAfterJobFinal,
} from './idempotency-checks.js';
import {
  createdJobReadable,
  distinctKeysDistinctJobs,
  evaluationWhenComplete,
  finalStateStaysFinal,
  idempotencyConflict,
  idempotentReplay,
  jobReachesFinalState,
  jobStatusMovesForward,
  limitationsOnlyWhenFinal,
  noEvaluationBeforeComplete,
  reserializedReplay,
  secondCallerIsolation,
  unknownJobNotFound,
  verificationResult,
} from './stateful-checks.js';
import { workflowSuccessCriteria } from './workflow-checks.js';

export const checks: readonly Check[] = [
  // Required: what the contract states.
  statusCodeDocumented,
  contentTypeDocumented,
  responseSchemaConformance,
  responseHeadersConformance,
  errorBody,
  notAServerError,
  positiveDataAcceptance,
  negativeDataRejection,
  missingRequiredHeader,
  malformedJsonRejected,
  createdJobReadable,
  jobReachesFinalState,
  idempotentReplay,
  idempotencyConflict,
  distinctKeysDistinctJobs,
  keysComparedExactly,
  replayAfterJobFinal,
  concurrentDuplicatesOneJob,
  concurrentBodiesOneAccepted,
  secondCallerIsolation,
  keyScopedToCaller,
  unknownJobNotFound,
  verificationResult,
  workflowSuccessCriteria,
  // Advisory: decisions of docs/assumptions.md.
  jobStatusMovesForward,
  finalStateStaysFinal,
  evaluationWhenComplete,
  noEvaluationBeforeComplete,
  limitationsOnlyWhenFinal,
  reserializedReplay,
  refusedRequestFreesKey,
  errorCodeDocumented,
  invalidJobIdNotFound,
  oversizedBodyRejected,
  unsupportedMediaTypeRejected,
  undeclaredMethodRejected,
  undeclaredPathNotFound,
  ignoredAuth,
  maxResponseTime,
  notRateLimited,
];

/**
 * The checks that judge every answer by what the spec documents for its operation, whatever
 * sent it: what judges a workflow's steps besides its own criteria, and a pact's interactions
 * besides the pact's own expectations.
 */
export const responseChecks: readonly Check[] = [
  statusCodeDocumented,
  contentTypeDocumented,
  responseSchemaConformance,
  responseHeadersConformance,
  errorBody,
  notAServerError,
  errorCodeDocumented,
  maxResponseTime,
  notRateLimited,
];

/** Thrown for a --checks or --exclude-checks name that is not in the list. */
export class UnknownCheckError extends Error {
  override readonly name = 'UnknownCheckError';
}

/** The checks to run: `include` (default all) minus `exclude`; unknown names throw. */
export function selectChecks(options: {
  include?: readonly string[];
  exclude?: readonly string[];
  /** Checks from --hooks, after the built-in ones, selected the same way. */
  extra?: readonly Check[];
}): Check[] {
  const all = [...checks, ...(options.extra ?? [])];
  const names = new Set(all.map((check) => check.name));
  for (const name of [...(options.include ?? []), ...(options.exclude ?? [])]) {
    if (!names.has(name)) throw new UnknownCheckError(`no check named '${name}'; the checks are: ${[...names].join(', ')}`);
  }
  const include = options.include && options.include.length > 0 ? new Set(options.include) : undefined;
  const exclude = new Set(options.exclude ?? []);
  const selected = all.filter((check) => (include ? include.has(check.name) : true) && !exclude.has(check.name));
  // A run that checks nothing would still say PASSED.
  if (selected.length === 0) throw new UnknownCheckError('--checks and --exclude-checks leave no check to run; select at least one');
  return selected;
}
