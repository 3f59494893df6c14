/**
 * @module conformance/profile/learning/precedence
 * The learning step for A-7.precedence: createEvaluation requests carrying two problems at
 * once, each pair that one request can carry sent once, then verifyReport's (a server may judge
 * its operations in other orders). Which problem the answer names (its status and code matched
 * to each problem's own entry, on that operation) says which the server judges first.
 */
import { bodyLimits } from '../../../contract/limits.js';
import type { OperationDescription } from '../../../openapi/document.js';
import type { ProblemName } from '../../../profile/methods-vocabulary.js';
import { contractOperationIds } from '../../probes/contract-operations.js';
import { requestExamples } from '../../probes/data-probes.js';
import type { ProbeContext, ProbeRequest } from '../../probes/probe-context.js';
import { jsonBodySchema } from '../../probes/request-builder.js';
import { methodQuestions } from '../observe-methods.js';
import { createRequest, overMaximumMember, validCreate, wrongTypeMember } from './create-request.js';
import type { LearningStep } from './steps.js';

/**
 * Every pair one request can carry (a body that is not JSON has no fields to be invalid), the
 * first named first. A body over the limit is the oversized-body probe's size, so the single
 * problem's answer is known for it.
 */
export const problemPairs: readonly (readonly [ProblemName, ProblemName])[] = [
  ['media-type', 'body-too-large'],
  ['media-type', 'malformed-json'],
  ['media-type', 'not-an-object'],
  ['media-type', 'missing-key'],
  ['media-type', 'over-maximum'],
  ['media-type', 'invalid-request'],
  ['body-too-large', 'malformed-json'],
  ['body-too-large', 'not-an-object'],
  ['body-too-large', 'missing-key'],
  ['body-too-large', 'over-maximum'],
  ['body-too-large', 'invalid-request'],
  ['malformed-json', 'missing-key'],
  ['not-an-object', 'missing-key'],
  ['over-maximum', 'missing-key'],
  ['over-maximum', 'invalid-request'],
  ['invalid-request', 'missing-key'],
];

/**
 * The pairs asked on verifyReport too: those without an Idempotency-Key (verifyReport takes none)
 * and without an oversized body (its limit is 16 MiB: five such bodies would cost more than the
 * whole learning phase may add to a run, A-7). Its body-too-large pairs follow the entry's order.
 */
export const verifyPairs: readonly (readonly [ProblemName, ProblemName])[] = problemPairs.filter(
  (pair) => !pair.includes('missing-key') && !pair.includes('body-too-large'),
);

/** The size of an over-limit body: the oversized-body probe's, one byte over createEvaluation's limit. */
export const oversizedBytes = bodyLimits.createEvaluationBytes + 1;

/** A request of `operation` (createEvaluation or verifyReport) with both problems of a pair. */
function twoProblems(options: {
  context: ProbeContext;
  operation: OperationDescription;
  body: Record<string, unknown>;
  pair: readonly [ProblemName, ProblemName];
}): ProbeRequest | undefined {
  const { context, operation, body, pair } = options;
  const [first, second] = pair;
  const problems = new Set<ProblemName>(pair);
  const onCreate = operation.operationId === contractOperationIds.create;
  const overMaximum = onCreate ? overMaximumMember(operation) : shortestOverMaximum(operation);
  const wrong = wrongTypeMember(body);
  if (problems.has('over-maximum') && !overMaximum) return undefined;
  let value: Record<string, unknown> = { ...body };
  if (problems.has('over-maximum')) value = { ...value, [overMaximum!.name]: overMaximum!.value };
  // Another member than the over-long one, so each problem stays itself.
  if (problems.has('invalid-request')) value = { ...value, [wrong.name === overMaximum?.name ? Object.keys(body)[1]! : wrong.name]: 7 };
  let raw = JSON.stringify(value);
  if (problems.has('malformed-json')) raw = raw.slice(0, -1);
  if (problems.has('not-an-object')) raw = '[]';
  if (problems.has('body-too-large')) raw = raw + ' '.repeat(Math.max(0, oversizedBytes - Buffer.byteLength(raw)));
  return createRequest({
    context,
    operation,
    purpose: `learning:precedence:${onCreate ? '' : `${operation.operationId}:`}${first}:${second}`,
    raw,
    headers: {
      ...(problems.has('media-type') ? { 'content-type': 'text/plain' } : {}),
      ...(problems.has('missing-key') ? { 'Idempotency-Key': undefined } : {}),
    },
  });
}

/** The string member with the smallest maxLength, one character over it: verifyReport's artifact allows 1 MiB. */
function shortestOverMaximum(operation: OperationDescription): { name: string; value: string } | undefined {
  const properties = (jsonBodySchema(operation)?.properties ?? {}) as Record<
    string,
    { type?: unknown; maxLength?: unknown; pattern?: unknown }
  >;
  const fitting = Object.entries(properties)
    .filter(([, schema]) => schema.type === 'string' && typeof schema.maxLength === 'number' && !schema.pattern)
    .sort(([, a], [, b]) => (a.maxLength as number) - (b.maxLength as number));
  const [name, schema] = fitting[0] ?? [];
  return name ? { name, value: 'x'.repeat((schema!.maxLength as number) + 1) } : undefined;
}

/** verifyReport and a valid body of it (its first example), or undefined when the contract has neither. */
function validVerify(context: ProbeContext): { operation: OperationDescription; body: Record<string, unknown> } | undefined {
  const operation = context.contract.operations.find((candidate) => candidate.operationId === contractOperationIds.verify);
  if (!operation || !context.includes(operation)) return undefined;
  const body = requestExamples(operation).find(
    (example): example is Record<string, unknown> =>
      typeof example === 'object' && example !== null && !Array.isArray(example) && Object.keys(example).length > 1,
  );
  return body ? { operation, body } : undefined;
}

export const precedenceStep: LearningStep = {
  label: 'two problems in one request',
  budget: problemPairs.length + verifyPairs.length,
  run: async (context) => {
    const asked = [
      ...(validCreate(context) ? [{ ...validCreate(context)!, pairs: problemPairs }] : []),
      ...(validVerify(context) ? [{ ...validVerify(context)!, pairs: verifyPairs }] : []),
    ];
    for (const { operation, body, pairs } of asked)
      for (const pair of pairs) {
        const request = twoProblems({ context, operation, body, pair });
        if (!request) continue;
        await context.send(request, {
          kind: 'learning',
          question: methodQuestions.precedence,
          detail: { first: pair[0], second: pair[1] },
        });
      }
  },
};
