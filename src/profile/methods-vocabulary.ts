/**
 * @module profile/methods-vocabulary
 * The names and defaults of format 2's method, strictness and order entries
 * (entries-methods.ts), kept apart so the engine and the runner read them without loading the
 * profile's schemas. Imports nothing.
 */
/**
 * The problems a request can have at once, as `A-7.precedence` names them; each stands for its
 * entry (media-type: A-21.media-type, missing-key: A-16.missing-key…).
 */
export const problemNames = [
  'media-type',
  'body-too-large',
  'malformed-json',
  'not-an-object',
  'missing-key',
  'over-maximum',
  'invalid-request',
] as const;
export type ProblemName = (typeof problemNames)[number];

/** The engine's order without a profile (src/engine/operations.ts): a missing key comes last. */
export const defaultProblemOrder: readonly ProblemName[] = [
  'media-type',
  'body-too-large',
  'malformed-json',
  'not-an-object',
  'over-maximum',
  'invalid-request',
  'missing-key',
];

/** The operations whose requests carry a body to judge: the ones an order may be declared for. */
export const orderedOperations = ['createEvaluation', 'verifyReport'] as const;

/** Methods the Allow list may add to those a path declares. */
export const allowAdditions = ['HEAD', 'OPTIONS'] as const;

/** The defaults of those entries: exactly what the mock does without a profile (docs/assumptions.md ). */
export const defaultMethodEntries = {
  'A-20.options': 'undeclared-method' as const,
  'A-20.head': 'like-get' as const,
  'A-20.allow': { adds: ['HEAD'] as (typeof allowAdditions)[number][] },
  'A-21.duplicate-members': 'last-wins' as const,
  'A-21.charset': 'accepted' as const,
  'A-16.non-ascii-key': 'accepted' as const,
  'A-7.precedence': { order: [...defaultProblemOrder] },
};
