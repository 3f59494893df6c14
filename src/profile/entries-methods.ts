/**
 * @module profile/entries-methods
 * Profile format 2's entries for method handling, strictness and the order problems are judged
 * in (docs/profiles.md, "Methods, strictness and order"): OPTIONS and HEAD on a contract path,
 * the 405's Allow list; duplicate JSON members and a non-UTF-8 charset; a
 * non-ASCII Idempotency-Key; which problem of a request with several is answered.
 * Each is one small declared fact whose default is the mock's behaviour without a profile.
 * Imported by entries.ts alone (it imports entries.ts back): others read methods-vocabulary.ts.
 */
import { z } from 'zod';
import { errorEntry, type LazyEntry } from './entries.js';
import { allowAdditions, orderedOperations, problemNames } from './methods-vocabulary.js';

/** An array in which no item comes twice: `what` names it in the refusal. */
function once<Item extends string>(items: z.ZodArray<z.ZodType<Item>>, what: string) {
  return items.refine((list) => new Set(list).size === list.length, { message: `names a ${what} more than once` });
}

const status = () => z.number().int().min(100).max(599);

export const methodEntries = {
  'A-20.options': {
    since: 2,
    schema: () =>
      z
        .union([
          z.literal('undeclared-method').describe('OPTIONS is a method the path does not declare: answered as A-20.undeclared-method.'),
          z
            .strictObject({
              status: z.union([z.literal(200), z.literal(204)]).describe('The status of the answer (no body).'),
              allow: z.boolean().describe('Whether the answer carries the Allow list (A-20.allow).'),
            })
            .describe('OPTIONS is answered, without a body.'),
        ])
        .describe(
          'OPTIONS on a contract path (not a CORS preflight): undeclared-method (answered as A-20.undeclared-method), or {status: 200 or 204, allow} (answered without a body).',
        ),
  },
  'A-20.head': {
    since: 2,
    schema: () =>
      z
        .union([
          z.literal('like-get').describe('HEAD is answered like GET, without a body.'),
          z
            .strictObject({ status: status().describe('The status of the refusal (no body: a HEAD answer has none).') })
            .describe('HEAD is refused, with the Allow list of A-20.undeclared-method.'),
        ])
        .describe('HEAD on a path that declares GET: like-get (GET’s answer without a body), or {status} (refused, without a body).'),
    statuses: { allowed: { any4xxExcept: [409, 413] }, because: 'a method the service does not serve is refused with a 4xx' },
  },
  'A-20.allow': {
    since: 2,
    schema: () =>
      z
        .strictObject({
          adds: once(z.array(z.enum(allowAdditions)).max(allowAdditions.length), 'method').describe(
            'Methods listed besides those the path declares: HEAD (beside GET), OPTIONS (on every path).',
          ),
        })
        .describe('The Allow list of a 405 (and of an answered OPTIONS): the declared methods, and adds: HEAD (beside GET), OPTIONS.'),
  },
  'A-21.duplicate-members': {
    since: 2,
    schema: () =>
      z
        .union([
          z.literal('last-wins').describe('Accepted; the last of the members with one name counts (JSON.parse).'),
          z.literal('first-wins').describe('Accepted; the first of the members with one name counts.'),
          errorEntry({}).describe('Refused.'),
        ])
        .describe('A JSON object naming a member twice: last-wins, first-wins, or {status: 400, code} (refused).'),
    statuses: { allowed: [400], because: 'a body the service does not read as the documented object is an invalid request: 400' },
  },
  'A-21.charset': {
    since: 2,
    schema: () =>
      z
        .union([z.literal('accepted').describe('The charset is ignored: the body is read as UTF-8.'), errorEntry({}).describe('Refused.')])
        .describe(
          'A JSON body declared with a charset other than UTF-8 (application/json; charset=iso-8859-1): accepted (read as UTF-8), or {status, code}.',
        ),
    statuses: {
      allowed: { any4xxExcept: [404, 405, 409, 413] },
      because: 'a body the service does not read is refused with a 4xx that no other condition of the operation claims',
    },
  },
  'A-16.non-ascii-key': {
    since: 2,
    schema: () =>
      z
        .union([z.literal('accepted').describe('Any key of 1 to 128 characters is a key.'), errorEntry({}).describe('Refused.')])
        .describe('createEvaluation with an Idempotency-Key holding a character outside ASCII: accepted, or {status: 400, code}.'),
    statuses: { allowed: [400], because: 'an Idempotency-Key that breaks the rules is an invalid request: 400' },
  },
  'A-7.precedence': {
    since: 2,
    schema: () => {
      const order = () =>
        once(z.array(z.enum(problemNames)).min(1).max(problemNames.length), 'problem').describe(
          `The problems in the order they are judged, first wins (${problemNames.join(', ')}); those left out come after, in the mock's order.`,
        );
      return z
        .strictObject({
          order: order(),
          operations: z
            .strictObject(
              Object.fromEntries(
                orderedOperations.map((operation) => [
                  operation,
                  z.strictObject({ order: order() }).optional().describe(`The order on ${operation} where it differs from the entry's.`),
                ]),
              ),
            )
            .optional()
            .describe(`Format 2: the order on an operation where it differs from the entry's (${orderedOperations.join(', ')}).`),
        })
        .describe(
          'Which problem a request with several is answered for: order names them, the first judged first; those left out follow in the mock’s order.',
        );
    },
  },
} as const satisfies Record<string, LazyEntry>;
