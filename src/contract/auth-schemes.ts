/**
 * @module contract/auth-schemes
 * IANA's HTTP Authentication Scheme Registry, in its spelling: the one list of the words an
 * Authorization value may start with and be known as a scheme, not a credential. Isomorphic
 * (the engine's scrubber runs in a service worker too). The scrubber (secrets.ts) takes every
 * long word of a value whose first word is not one of these as a part of the credential
 * (`sk_live_… v2`); the learner records a caller's scheme only when it is one of these, since
 * a profile is a file meant for other teams.
 * https://www.iana.org/assignments/http-authschemes/
 */
export const registeredAuthSchemes = [
  'Basic',
  'Bearer',
  'Concealed',
  'Digest',
  'DPoP',
  'GNAP',
  'HOBA',
  'Mutual',
  'Negotiate',
  'OAuth',
  'PrivateToken',
  'SCRAM-SHA-1',
  'SCRAM-SHA-256',
  'vapid',
] as const;

/** The registry's spelling of `word` (compared case-insensitively), or undefined for a word it does not register. */
export function registeredAuthScheme(word: string): string | undefined {
  const lower = word.toLowerCase();
  return registeredAuthSchemes.find((scheme) => scheme.toLowerCase() === lower);
}
