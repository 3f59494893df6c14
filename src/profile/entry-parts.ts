/**
 * @module profile/entry-parts
 * Profile format 2's answers per operation and per condition (A-50, docs/profiles.md "Conditions
 * and operations"): an error entry may add `operations: {verifyReport: {status, code}}` and
 * `conditions: {minLength: {status, code}}` where the server answers one situation differently
 * by operation or by the condition a client can tell apart. A condition's part is finer than an
 * operation's: it wins over it. Both are bounded to the names listed here, refused otherwise
 * with the list. One reading, `answerFor`, serves the engine, the runner's checks and the
 * learner alike. Isomorphic; imports no other module of the profile (entries.ts imports it).
 */
import { z } from 'zod';

/** The contract's operations (their operationIds): the keys an `operations` part may have. */
export const profileOperations = ['health', 'createEvaluation', 'getJob', 'verifyReport'] as const;
export type ProfileOperation = (typeof profileOperations)[number];

/**
 * The constraints a request can break, named as the runner's negative probes name them (the
 * JSON Schema keywords of src/conformance/generators/mutations.ts `ConstraintKind`) and as the
 * engine's validation reports them: `required` is a value (or header) left out, `minLength` on a
 * header an empty one.
 */
export const constraintConditions = [
  'type',
  'required',
  'additionalProperties',
  'enum',
  'pattern',
  'format',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
] as const;

/**
 * The conditions each entry covers that a client can tell apart, by entry name; an entry not
 * listed has none. A-20.unknown-route's `empty-path-parameter` is an operation's path with an
 * empty parameter (GET /v0/jobs/), A-52.
 */
export const conditionsOf: Readonly<Record<string, readonly string[]>> = {
  'A-2.over-maximum': ['maxLength', 'maxItems'],
  'A-7.invalid-request': constraintConditions,
  'A-16.missing-key': ['required', 'minLength'],
  'A-20.unknown-route': ['empty-path-parameter'],
  'A-23.invalid-job-id': ['maxLength'],
};

/**
 * Conditions beside an entry's own situation rather than kinds of it: seen alone, they say
 * nothing of the entry's own answer (an empty jobId is not a path outside the contract).
 */
export const sideConditions: ReadonlySet<string> = new Set(['empty-path-parameter']);

/** An answer as a part declares it: a status and a code, and where the entry has them its header switches. */
export interface AnswerPart {
  readonly status: number;
  readonly code: string;
  readonly retryAfter?: boolean;
  readonly allow?: boolean;
}

/** An error entry's value with its optional parts. */
export interface WithParts extends AnswerPart {
  readonly operations?: Readonly<Partial<Record<string, AnswerPart>>>;
  readonly conditions?: Readonly<Partial<Record<string, AnswerPart>>>;
  readonly [extra: string]: unknown;
}

/** Operations without a 413: their over-limit answers are 400, whatever the entry's status. */
export const operationsWithout413: ReadonlySet<string> = new Set(['verifyReport']);

/** Entries whose status an operation without a 413 keeps at 400. */
const limitEntries = new Set(['A-2.over-maximum', 'A-13.body-too-large']);

/** Whether `entry` answered on `operation` keeps its 400 (an operation without a 413). */
export function keeps400(entry: string, operation: string | undefined): boolean {
  return limitEntries.has(entry) && operation !== undefined && operationsWithout413.has(operation);
}

/**
 * The answer an entry declares for one refusal: the entry's own, then its operation's part,
 * then its condition's part (the finer wins); on an operation without a 413, a limit entry's
 * status is 400. Extras of the entry (retryAfter, allow) are kept, unless a part sets its own.
 */
export function answerFor<Value extends AnswerPart>(
  entry: string,
  value: Value,
  at: { readonly operation?: string | undefined; readonly condition?: string | undefined },
): Omit<Value, 'operations' | 'conditions'> {
  const { operations, conditions, ...own } = value as Value & WithParts;
  const byOperation = at.operation !== undefined ? operations?.[at.operation] : undefined;
  const byCondition = at.condition !== undefined ? conditions?.[at.condition] : undefined;
  const answer = { ...own, ...(byOperation ?? {}), ...(byCondition ?? {}) } as Omit<Value, 'operations' | 'conditions'> & AnswerPart;
  return keeps400(entry, at.operation) ? { ...answer, status: 400 } : answer;
}

/** Every part of an entry's value, named (`operations.verifyReport`), for the rules and the vocabulary. */
export function partsOf(value: unknown): { readonly at: string; readonly operation?: string; readonly answer: AnswerPart }[] {
  if (!value || typeof value !== 'object') return [];
  const { operations, conditions } = value as WithParts;
  return [
    ...Object.entries(operations ?? {}).map(([operation, answer]) => ({ at: `operations.${operation}`, operation, answer: answer! })),
    ...Object.entries(conditions ?? {}).map(([condition, answer]) => ({ at: `conditions.${condition}`, answer: answer! })),
    // Only answers: A-7.precedence's operations hold an order, not a status and code.
  ].filter((part) => typeof part.answer === 'object' && part.answer !== null && typeof part.answer.status === 'number');
}

/** Whether a value declares any part (a format 2 feature). */
export function hasParts(value: unknown): boolean {
  return partsOf(value).length > 0;
}

/** The header switches an entry may have that a part may set for its operation or condition too. */
export const partExtras = ['retryAfter', 'allow'] as const;

/** The schema of one part: a status and a code, as the entry's own, and the entry's header switches, each optional. */
function partSchema(status: () => z.ZodNumber, code: () => z.ZodString, extras: Readonly<Record<string, () => z.ZodType>>) {
  return z.strictObject({
    status: status(),
    code: code(),
    ...Object.fromEntries(Object.entries(extras).map(([name, schema]) => [name, schema().optional()])),
  });
}

/**
 * The optional `operations` and `conditions` of an error entry (format 2), each keyed by a name
 * it knows: a key it does not know is refused with the list of those it does.
 */
export function partsShape(options: {
  readonly conditions: readonly string[];
  readonly status: () => z.ZodNumber;
  readonly code: () => z.ZodString;
  /** The entry's header switches (partExtras) a part may set too; absent in a part: the entry's. */
  readonly extras?: Readonly<Record<string, () => z.ZodType>>;
}) {
  const unknownKeys = (known: readonly string[], what: string) => (parts: object, context: z.RefinementCtx) => {
    for (const key of Object.keys(parts))
      if (!known.includes(key))
        context.addIssue({
          code: 'custom',
          path: [key],
          message:
            known.length === 0
              ? `unknown ${what} '${key.slice(0, 40)}': this entry has no ${what}s a client can tell apart`
              : `unknown ${what} '${key.slice(0, 40)}'; known: ${known.join(', ')}`,
        });
  };
  const part = () => partSchema(options.status, options.code, options.extras ?? {});
  // Operations: a record whose JSON Schema lists the names an editor may offer (propertyNames).
  const keyed = (known: readonly string[], what: string) =>
    z
      .record(z.string().max(64), part())
      .superRefine(unknownKeys(known, what))
      .meta({ propertyNames: { type: 'string', enum: [...known] } })
      .optional();
  // Conditions: each known name a property of its own, so an editor completes it from the schema.
  const named = (known: readonly string[], what: string) =>
    z
      .looseObject(
        Object.fromEntries(known.map((name) => [name, part().optional()])) as Record<string, z.ZodOptional<z.ZodType<AnswerPart>>>,
      )
      .superRefine(unknownKeys(known, what))
      .meta({ additionalProperties: false })
      .optional();
  return {
    operations: keyed(profileOperations, 'operation').describe(
      `Format 2: the answer on an operation where it differs from the entry's (${profileOperations.join(', ')}).`,
    ),
    conditions: named(options.conditions, 'condition').describe(
      options.conditions.length === 0
        ? 'Format 2: none for this entry.'
        : `Format 2: the answer to a condition where it differs from the entry's and the operation's (${options.conditions.join(', ')}).`,
    ),
  };
}
