/**
 * @module profile/entries-credentials
 * Profile format 2's entries for credentials and response headers (docs/profiles.md, "Credentials
 * and headers"; docs/assumptions.md A-54): what a malformed credential and a credential of another
 * scheme get, with the challenge of their 401; and the headers a client reads on each class of
 * answer (Location on a create's 202, Cache-Control on Job reads and errors, Retry-After's
 * seconds, the header marking a replay), as templates. Header names come from a fixed set per
 * class, values are bounded (256 printable ASCII characters), and the placeholders are Location's
 * only: `{jobId}` anywhere, and `{origin}` at its start (the origin of the request answered, so a
 * client following it stays on the server it asked, mock or server: A-3). Isomorphic.
 */
import { z } from 'zod';
import { errorEntry, type LazyEntry } from './entries.js';

/** The longest header value a profile may declare. */
export const maxHeaderValueLength = 256;

/** Printable ASCII and spaces: what every HTTP stack sends as is (obs-text would be read as Latin-1 by some). */
const printableAscii = /^[\x20-\x7E]+$/;

/** RFC 9110 §11.6.1: a challenge begins with its auth-scheme. */
const challengeStart = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+( |$)/;

/** The headers that mark a replayed create, as servers spell them (IETF draft-ietf-httpapi-idempotency-key-header and its forks). */
export const replayMarkerHeaders = [
  'Idempotent-Replayed',
  'Idempotency-Replayed',
  'X-Idempotent-Replayed',
  'X-Idempotency-Replayed',
] as const;

/** Each answer class's fixed set of header names a profile may declare. */
export const headerSets = {
  'A-3.accepted-headers': ['Location', 'Cache-Control', ...replayMarkerHeaders],
  'A-3.job-headers': ['Cache-Control', 'Retry-After'],
  'A-7.error-headers': ['Cache-Control'],
  'A-16.replay-headers': [...replayMarkerHeaders],
} as const;

export type HeaderEntryName = keyof typeof headerSets;

/** The placeholder a Location starts with to stand for the origin of the request it answers. */
export const originPlaceholder = '{origin}';

/**
 * What is wrong with a header value, or undefined. With `placeholder` (Location), a template:
 * `{jobId}` anywhere, `{origin}` only at its start and followed by a path (`{origin}/…`).
 */
export function headerValueProblem(value: string, options: { placeholder?: boolean; seconds?: boolean } = {}): string | undefined {
  if (value.length > maxHeaderValueLength) return `is ${value.length} characters; at most ${maxHeaderValueLength}`;
  if (value !== value.trim() || !printableAscii.test(value)) return 'is not printable ASCII without surrounding spaces';
  if (options.placeholder) {
    const startsWithOrigin = value.startsWith(originPlaceholder);
    if (startsWithOrigin && !value.startsWith(`${originPlaceholder}/`)) return 'has {origin} without a path after it ({origin}/…)';
    const rest = (startsWithOrigin ? value.slice(originPlaceholder.length) : value).replaceAll('{jobId}', '');
    if (rest.includes(originPlaceholder)) return 'has {origin} after its start: {origin} may only begin a Location';
    if (/[{}]/.test(rest)) return 'has a placeholder other than {jobId} and a leading {origin}';
  } else if (/[{}]/.test(value)) return 'has a placeholder: only Location may hold {jobId} or {origin}';
  if (options.seconds && !/^\d{1,5}$/.test(value)) return 'is not a number of seconds (Retry-After: delay-seconds)';
  return undefined;
}

function headerValue(options: { placeholder?: boolean; seconds?: boolean } = {}) {
  return z
    .string()
    .min(1)
    .superRefine((value, context) => {
      const problem = headerValueProblem(value, options);
      if (problem) context.addIssue({ code: 'custom', message: problem });
    });
}

function headersEntry(name: HeaderEntryName, description: string) {
  const shape: Record<string, z.ZodType> = {};
  for (const header of headerSets[name])
    shape[header] = headerValue({ placeholder: header === 'Location', seconds: header === 'Retry-After' })
      .optional()
      .describe(
        header === 'Location'
          ? 'The value, with {jobId} where the job id goes: a path, an absolute URL, or {origin}/… where the server named its own origin (filled with the origin of the request answered).'
          : 'The value, as sent.',
      );
  return z.strictObject(shape).describe(`${description} Those named are sent, the others of its set not.`);
}

/** A `WWW-Authenticate` challenge as a server sends it, served as is. */
export const challengeValue = () =>
  z
    .string()
    .min(1)
    .superRefine((value, context) => {
      const problem = headerValueProblem(value) ?? (challengeStart.test(value) ? undefined : 'does not begin with an auth-scheme');
      if (problem) context.addIssue({ code: 'custom', message: problem });
    })
    .describe(
      `The WWW-Authenticate value of the 401, as the server sends it (scheme and auth-params, e.g. Bearer realm="api", error="invalid_token"); absent: the mock's own challenge (A-54). At most ${maxHeaderValueLength} printable ASCII characters.`,
    );

/** 'anonymous', or a refusal with its challenge. */
function credentialOutcome(description: string) {
  return z
    .union([
      z
        .literal('anonymous')
        .describe('Taken as no credentials: answered as A-10.without-credentials says (by default, the anonymous caller).'),
      errorEntry({ challenge: challengeValue().optional() }).describe('Refused with this status and code (and on a 401 this challenge).'),
    ])
    .describe(description);
}

const retryAfterSeconds = (what: string) =>
  z
    .strictObject({
      seconds: z.number().int().min(0).max(86_400).describe('The delay in seconds (RFC 9110 §10.2.3 delay-seconds).'),
    })
    .describe(`The Retry-After value of ${what}, where it carries one.`);

/** The rows of this topic, spread at the end of entries.ts's table. */
export const credentialAndHeaderEntries = {
  'A-10.malformed-credentials': {
    since: 2,
    schema: () =>
      credentialOutcome(
        'An Authorization that is not credentials (`Bearer a b c`): anonymous (as without credentials) or {status, code, challenge}.',
      ),
    statuses: { allowed: [401, 403], because: 'a refusal of credentials is 401 or 403 (RFC 9110 §15.5.2, §15.5.4), under default' },
  },
  'A-10.other-scheme': {
    since: 2,
    schema: () =>
      credentialOutcome(
        "An Authorization of another scheme than A-10.caller's: anonymous (as without credentials) or {status, code, challenge}.",
      ),
    statuses: { allowed: [401, 403], because: 'a refusal of credentials is 401 or 403 (RFC 9110 §15.5.2, §15.5.4), under default' },
  },
  'A-3.accepted-headers': {
    since: 2,
    schema: () => headersEntry('A-3.accepted-headers', "The headers of createEvaluation's 202 (a replay's too)."),
  },
  'A-3.job-headers': {
    since: 2,
    schema: () => headersEntry('A-3.job-headers', "The headers of getJob's 200."),
  },
  'A-7.error-headers': {
    since: 2,
    schema: () => headersEntry('A-7.error-headers', 'The headers of every Error answer.'),
  },
  'A-16.replay-headers': {
    since: 2,
    schema: () => headersEntry('A-16.replay-headers', 'The header marking a replayed create.'),
  },
  'A-11.retry-after': { since: 2, schema: () => retryAfterSeconds('a 429') },
  'A-8.retry-after': { since: 2, schema: () => retryAfterSeconds('a 503') },
} as const satisfies Record<string, LazyEntry>;

/** The challenge a declared refusal carries, if any. */
export function declaredChallenge(value: unknown): string | undefined {
  return value && typeof value === 'object' ? (value as { challenge?: string }).challenge : undefined;
}
