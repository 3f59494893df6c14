/**
 * @module conformance/profile/learning/precedence
 * The learning step for A-7.precedence: createEvaluation requests carrying two problems at
 * once, each pair that one request can carry sent once. Which problem the answer names (its
 * status and code matched to each problem's own entry) says which the server judges first.
 */
import { bodyLimits } from '../../../contract/limits.js';
import type { ProblemName } from '../../../profile/methods-vocabulary.js';
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

/** The size of an over-limit body: the oversized-body probe's, one byte over createEvaluation's limit. */
export const oversizedBytes = bodyLimits.createEvaluationBytes + 1;

export const precedenceStep: LearningStep = {
  label: 'two problems in one request',
  budget: problemPairs.length,
  run: async (context) => {
    const create = validCreate(context);
    if (!create) return;
    const { operation, body } = create;
    const overMaximum = overMaximumMember(operation);
    const wrong = wrongTypeMember(body);
    for (const [first, second] of problemPairs) {
      const problems = new Set<ProblemName>([first, second]);
      if (problems.has('over-maximum') && !overMaximum) continue;
      let value: Record<string, unknown> = { ...body };
      if (problems.has('over-maximum')) value = { ...value, [overMaximum!.name]: overMaximum!.value };
      // Another member than the over-long one, so each problem stays itself.
      if (problems.has('invalid-request')) value = { ...value, [wrong.name === overMaximum?.name ? Object.keys(body)[1]! : wrong.name]: 7 };
      let raw = JSON.stringify(value);
      if (problems.has('malformed-json')) raw = raw.slice(0, -1);
      if (problems.has('not-an-object')) raw = '[]';
      if (problems.has('body-too-large')) raw = raw + ' '.repeat(Math.max(0, oversizedBytes - Buffer.byteLength(raw)));
      const request = createRequest({
        context,
        operation,
        purpose: `learning:precedence:${first}:${second}`,
        raw,
        headers: {
          ...(problems.has('media-type') ? { 'content-type': 'text/plain' } : {}),
          ...(problems.has('missing-key') ? { 'Idempotency-Key': undefined } : {}),
        },
      });
      await context.send(request, { kind: 'learning', question: methodQuestions.precedence, detail: { first, second } });
    }
  },
};
