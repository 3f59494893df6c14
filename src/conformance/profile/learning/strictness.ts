/**
 * @module conformance/profile/learning/strictness
 * The learning step for the strictness switches (A-21.duplicate-members, A-21.charset,
 * A-16.non-ascii-key): each a valid create with one oddity, under a fresh Idempotency-Key.
 * Duplicate members are asked twice, the valid value first and then last: a server that reads
 * the last member accepts one and refuses the other, one that refuses duplicates refuses both.
 */
import { methodQuestions } from '../observe-methods.js';
import { createRequest, keyOf, validCreate, wrongTypeMember } from './create-request.js';
import type { LearningStep } from './steps.js';

export const strictnessStep: LearningStep = {
  label: 'strictness: duplicate members, a charset, a key outside ASCII',
  budget: 4,
  run: async (context) => {
    const create = validCreate(context);
    if (!create) return;
    const { operation, body } = create;
    const wrong = wrongTypeMember(body);
    const { [wrong.name]: valid, ...rest } = body;
    const restText = JSON.stringify(rest).slice(1);
    const member = (value: unknown) => `${JSON.stringify(wrong.name)}:${JSON.stringify(value)}`;
    const withRest = (members: string) => `{${members}${restText === '}' ? '}' : `,${restText}`}`;
    for (const variant of ['first-valid', 'last-valid'] as const) {
      const members = variant === 'first-valid' ? `${member(valid)},${member(wrong.value)}` : `${member(wrong.value)},${member(valid)}`;
      const request = createRequest({ context, operation, purpose: `learning:duplicate:${variant}`, raw: withRest(members) });
      await context.send(request, {
        kind: 'learning',
        question: methodQuestions.duplicateMembers,
        detail: { variant, sent: `'${wrong.name}' twice, the valid value ${variant === 'first-valid' ? 'first' : 'last'}` },
      });
    }
    const text = JSON.stringify(body);
    const charset = createRequest({
      context,
      operation,
      purpose: 'learning:charset',
      raw: text,
      headers: { 'content-type': 'application/json; charset=iso-8859-1' },
    });
    await context.send(charset, { kind: 'learning', question: methodQuestions.charset, detail: { sent: 'charset=iso-8859-1' } });
    const keyed = createRequest({ context, operation, purpose: 'learning:non-ascii-key', raw: text });
    // é is one byte (0xE9) in a header's ISO-8859-1 octets: any HTTP stack can carry it.
    const key = `${(keyOf(keyed) ?? 'eh-learning-key').slice(0, 120)}-clé`;
    await context.send(
      createRequest({ context, operation, purpose: 'learning:non-ascii-key', raw: text, headers: { 'Idempotency-Key': key } }),
      {
        kind: 'learning',
        question: methodQuestions.nonAsciiKey,
        detail: { sent: 'an Idempotency-Key ending in é' },
      },
    );
  },
};
