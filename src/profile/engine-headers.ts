/**
 * @module profile/engine-headers
 * What the mock does with profile format 2's credential and header entries (docs/profiles.md,
 * "Credentials and headers"; A-54): which credential condition a request is in (none, malformed,
 * another scheme) and what the profile answers it; and the headers a declared entry adds to each
 * class of answer (a create's 202 and its replays, a Job read, an Error, a 429 or 503). Only
 * declared entries act, so a profile that declares none of them answers as before. Isomorphic
 * (the engine imports it).
 */
import { wellFormedCredentials } from '../contract/authorization.js';
import { credentialChallenge, type Situation } from './engine-profile.js';
import { declaredChallenge, type HeaderEntryName, originPlaceholder } from './entries-credentials.js';
import type { ServerProfile } from './profile.js';

/** Why a request names no caller: no credentials, credentials that are not credentials, another scheme's. */
export type CredentialCondition = 'missing' | 'malformed' | 'other-scheme';

/**
 * The caller's credential under the profile's A-10.caller, or the condition that makes it none.
 * The same reading as callerCredential (engine-profile.ts), told apart: a one-word Authorization
 * is an auth-scheme of its own (RFC 9110 §11.4), so another scheme than the declared one.
 */
export function credentialOf(
  header: (name: string) => string | null,
  profile: ServerProfile,
): { readonly credential: string } | { readonly condition: CredentialCondition } {
  const { header: name, scheme } = profile.entries['A-10.caller'];
  const value = header(name.toLowerCase());
  if (value === null || value === '') return { condition: 'missing' };
  const isAuthorization = name.toLowerCase() === 'authorization';
  if (isAuthorization && !wellFormedCredentials(value)) return { condition: 'malformed' };
  if (scheme === 'any') return { credential: value };
  const space = value.indexOf(' ');
  const first = space < 0 ? value : value.slice(0, space);
  const rest = space < 0 ? '' : value.slice(space + 1).trim();
  if (scheme !== 'custom' && first.toLowerCase() !== scheme.toLowerCase())
    return { condition: isAuthorization || rest !== '' ? 'other-scheme' : 'malformed' };
  return rest === '' ? { condition: 'malformed' } : { credential: value };
}

/** A refusal of a request's credentials, as the profile decides it. */
export interface CredentialRefusal {
  readonly status: number;
  readonly code: string;
  readonly situation: Situation;
  readonly headers?: Record<string, string>;
}

const entryOfCondition = {
  missing: 'A-10.without-credentials',
  malformed: 'A-10.malformed-credentials',
  'other-scheme': 'A-10.other-scheme',
} as const;

/**
 * What a request in `condition` gets: 'anonymous' (the anonymous caller), or a refusal. A
 * malformed or other-scheme credential whose entry is 'anonymous' is answered as one without
 * credentials. A 401 carries the deciding entry's challenge, else the mock's own.
 */
export function credentialRefusal(condition: CredentialCondition, profile: ServerProfile): CredentialRefusal | 'anonymous' {
  const own = profile.entries[entryOfCondition[condition]];
  const situation: Situation = own === 'anonymous' ? 'A-10.without-credentials' : entryOfCondition[condition];
  const entry = profile.entries[situation as 'A-10.without-credentials'];
  if (entry === 'anonymous') return 'anonymous';
  const challenge =
    entry.status === 401 ? (declaredChallenge(entry) ?? credentialChallenge(profile, { malformed: condition === 'malformed' })) : undefined;
  return {
    status: entry.status,
    code: entry.code,
    situation,
    ...(challenge === undefined ? {} : { headers: { 'www-authenticate': challenge } }),
  };
}

/** The class of an answer, for its headers. */
export interface AnswerClass {
  readonly operationId?: string | undefined;
  readonly status: number;
  /** The answer is an Error. */
  readonly error: boolean;
  readonly replayed?: boolean | undefined;
  readonly jobId?: string | undefined;
  /** The origin of the request answered (`http://host:port`), for Location's `{origin}`: read only then. */
  readonly origin?: (() => string | undefined) | undefined;
}

function declared(profile: ServerProfile, name: HeaderEntryName): Readonly<Record<string, string>> | undefined {
  return profile.declared.has(name) ? (profile.entries[name] as Record<string, string>) : undefined;
}

function filledLocation(template: string, answer: AnswerClass): string {
  const located = template.startsWith(originPlaceholder)
    ? `${answer.origin?.() ?? ''}${template.slice(originPlaceholder.length)}`
    : template;
  return located.replaceAll('{jobId}', answer.jobId ?? '');
}

/**
 * `headers` (lowercase names) with what the profile's declared header entries add to an answer
 * of this class; the same object when none applies. Location's `{jobId}` is the answer's job, its
 * `{origin}` the origin of the request answered: a client following it stays on this mock.
 * Without a known origin the Location is its path alone, which a client resolves against the
 * request's URL (RFC 9110 §10.2.2): the same place.
 */
export function profiledHeaders(
  headers: Readonly<Record<string, string>>,
  answer: AnswerClass,
  profile: ServerProfile,
): Readonly<Record<string, string>> {
  const added: Record<string, string> = {};
  const add = (entry: Readonly<Record<string, string>> | undefined) => {
    for (const [name, value] of Object.entries(entry ?? {}))
      added[name.toLowerCase()] = name === 'Location' ? filledLocation(value, answer) : value;
  };
  if (answer.operationId === 'createEvaluation' && answer.status === 202) {
    add(declared(profile, 'A-3.accepted-headers'));
    if (answer.replayed) add(declared(profile, 'A-16.replay-headers'));
  }
  if (answer.operationId === 'getJob' && answer.status === 200) add(declared(profile, 'A-3.job-headers'));
  if (answer.error) {
    add(declared(profile, 'A-7.error-headers'));
    // A declared delay replaces the mock's where the answer carries one (its entry may declare none).
    const delay = answer.status === 429 ? 'A-11.retry-after' : answer.status === 503 ? 'A-8.retry-after' : undefined;
    if (delay && headers['retry-after'] !== undefined && profile.declared.has(delay))
      added['retry-after'] = String(profile.entries[delay].seconds);
  }
  return Object.keys(added).length === 0 ? headers : { ...headers, ...added };
}
