/**
 * @module profile/engine-profile
 * What the mock does with a profile: each refusal the engine builds carries the situation
 * it answers (an entry name), and `profiledError` gives it the entry's status, code and headers;
 * a job's timeline, the caller's credential and the health body follow their entries. Nothing
 * here runs under the default profile: the engine takes this path only for a declared one.
 * Isomorphic (the engine imports it).
 */
import { authenticateChallenge, wellFormedCredentials } from '../contract/authorization.js';
import type { EntryName } from './entries.js';
import { answerFor, keeps400 } from './entry-parts.js';
import type { ServerProfile } from './profile.js';

/** The entries that are error answers: a situation the engine refuses a request in. */
export type Situation =
  | 'A-2.over-maximum'
  | 'A-7.invalid-request'
  | 'A-8.server-failure'
  | 'A-8.unavailable'
  | 'A-10.without-credentials'
  | 'A-10.malformed-credentials'
  | 'A-10.other-scheme'
  | 'A-10.unknown-job'
  | 'A-10.other-callers-job'
  | 'A-11.rate-limited'
  | 'A-13.body-too-large'
  | 'A-16.missing-key'
  | 'A-16.conflict'
  | 'A-20.undeclared-method'
  | 'A-20.unknown-route'
  | 'A-21.malformed-json'
  | 'A-21.not-an-object'
  | 'A-21.media-type'
  | 'A-23.invalid-job-id';

/** A refusal as the engine builds it (structurally its EngineError). */
export interface SituatedError {
  readonly status: number;
  readonly code: string;
  readonly message: string;
  readonly headers?: Record<string, string>;
  readonly situation?: Situation;
  /**
   * Which condition of the situation it is, where the entry covers several a client can tell
   * apart (entry-parts.ts `conditionsOf`): the constraint broken, `empty-path-parameter`…
   */
  readonly condition?: string;
}

/** The situation a forced status stands for (a scenario fault, `Prefer: code=`). */
export const situationOfForcedStatus: Readonly<Record<number, Situation>> = {
  400: 'A-7.invalid-request',
  404: 'A-10.unknown-job',
  409: 'A-16.conflict',
  413: 'A-2.over-maximum',
  429: 'A-11.rate-limited',
  500: 'A-8.server-failure',
  503: 'A-8.unavailable',
};

/**
 * `error` as the profile answers its situation: the declared status and code (the operation's
 * or the condition's part where the entry declares one, entry-parts.ts), Retry-After and Allow
 * as declared. An error of no situation, or of an undeclared one, is returned as it is.
 */
export function profiledError<Refusal extends SituatedError>(error: Refusal, profile: ServerProfile, operationId?: string): Refusal {
  const situation = error.situation;
  if (!situation || !profile.declared.has(situation as EntryName)) return error;
  const declared = profile.entries[situation] as { status: number; code: string; retryAfter?: boolean; allow?: boolean } | 'anonymous';
  if (declared === 'anonymous') return error;
  const entry = answerFor(situation, declared, { operation: operationId, condition: error.condition });
  // On an operation without a 413 a limit's refusal keeps the engine's 400 (answerFor says 400 too).
  const keepStatus = keeps400(situation, operationId);
  const headers: Record<string, string> = { ...(error.headers ?? {}) };
  if (entry.retryAfter === false) delete headers['retry-after'];
  if (entry.retryAfter === true) headers['retry-after'] ??= '1';
  if (entry.allow === false) delete headers.allow;
  const status = keepStatus ? error.status : entry.status;
  // Every 401 carries a challenge (RFC 9110 §15.5.2), whichever situation a profile gave it to.
  if (status === 401) headers['www-authenticate'] ??= credentialChallenge(profile);
  return {
    ...error,
    status,
    code: entry.code,
    ...(Object.keys(headers).length > 0 ? { headers } : { headers: undefined }),
  };
}

/**
 * The credential naming the caller (A-10): the declared header's value, when it uses the
 * declared scheme (`custom`: a first word of the server's own, then the credential); null
 * without one. An Authorization value that is not credentials by RFC 9110's syntax
 * (`Bearer a b c`, `Bearer` alone) names no caller either (A-54).
 */
export function callerCredential(header: (name: string) => string | null, profile: ServerProfile): string | null {
  const { header: name, scheme } = profile.entries['A-10.caller'];
  const value = header(name.toLowerCase());
  if (value === null || value === '') return null;
  if (name.toLowerCase() === 'authorization' && !wellFormedCredentials(value)) return null;
  if (scheme === 'any') return value;
  const space = value.indexOf(' ');
  if (space <= 0 || value.slice(space + 1).trim() === '') return null;
  return scheme === 'custom' || value.slice(0, space).toLowerCase() === scheme.toLowerCase() ? value : null;
}

/**
 * The `WWW-Authenticate` of the profile's 401: the declared scheme (`any`: Bearer, the
 * scheme most APIs use; `custom`, whose name is the server's own: ApiKey), or `ApiKey` naming
 * the header when the caller is named by another header than Authorization. `malformed` adds
 * Bearer's `error="invalid_token"` (RFC 6750 §3.1): credentials were sent, but unreadable.
 */
export function credentialChallenge(profile: ServerProfile, options: { malformed?: boolean } = {}): string {
  const { header, scheme } = profile.entries['A-10.caller'];
  return authenticateChallenge({
    scheme: scheme === 'any' ? 'Bearer' : scheme === 'custom' ? 'ApiKey' : scheme,
    header,
    ...(options.malformed ? { error: 'invalid_token' as const } : {}),
  });
}

/** A timeline step as the engine keeps it (structurally its TimelineStep). */
export interface ProfiledStep {
  readonly status: string;
  readonly evaluation?: string;
  readonly limitations?: readonly string[];
  readonly at: { readonly reads?: number; readonly ms?: number } | 'manual';
}

/**
 * A job's timeline under the profile's: steps whose state the server never passes
 * through are left out (never the last, which ends the job), the job starts at `first`, and
 * evaluation is carried where A-4 says. `reached` is the step the job starts at (-1: QUEUED).
 */
export function profiledTimeline<Step extends ProfiledStep>(
  steps: readonly Step[],
  profile: ServerProfile,
): { readonly steps: readonly Step[]; readonly reached: number } {
  const { first, through } = profile.entries['A-3.timeline'];
  const evaluation = profile.entries['A-4.evaluation'];
  const kept = steps.filter((step, index) => index === steps.length - 1 || through.includes(step.status as never));
  const shaped = kept.map((step): Step => {
    if (step.status === 'COMPLETE' && evaluation.complete === 'absent') {
      const { evaluation: _dropped, ...rest } = step;
      return rest as Step;
    }
    if (step.status === 'FAILED' && evaluation.failed === 'present' && !step.evaluation) return { ...step, evaluation: 'FAIL' };
    return step;
  });
  const reached = first === 'QUEUED' ? -1 : first === 'RUNNING' ? (shaped[0]?.status === 'RUNNING' ? 0 : -1) : shaped.length - 1;
  return { steps: shaped, reached };
}
