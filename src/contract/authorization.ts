/**
 * @module contract/authorization
 * The plumbing of HTTP authentication (RFC 9110 §11), one reading for the engine and the
 * profile: whether an `Authorization` value is credentials at all (A-10: a malformed one names
 * no caller), and the `WWW-Authenticate` challenge every 401 must carry (RFC 9110 §15.5.2).
 * Isomorphic.
 */

/** RFC 9110 §5.6.2 `token`: an auth-scheme, an auth-param's name. */
const token = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
/** RFC 9110 §11.2 `token68`: what Bearer and Basic carry. */
const token68 = '[A-Za-z0-9._~+/-]+=*';
/** RFC 9110 §5.6.4 `quoted-string` (obs-text left out: a credential the mock reads is ASCII). */
const quotedString = '"(?:[\\t !#-\\[\\]-~]|\\\\[\\t -~])*"';
const authParam = `${token}[ \\t]*=[ \\t]*(?:${token}|${quotedString})`;
const authParams = `(?:,|${authParam})(?:[ \\t]*,(?:[ \\t]*${authParam})?)*`;

/** RFC 9110 §11.4 `credentials = auth-scheme [ 1*SP ( token68 / #auth-param ) ]`. */
const credentialsSyntax = new RegExp(`^${token}(?: +(?:${token68}|${authParams}))?$`);

/**
 * Schemes whose credentials are required after the name (RFC 6750 §2.1 Bearer, RFC 7617 §2
 * Basic, RFC 9449 §7.1 DPoP): the name alone is no credential.
 */
const schemesNeedingCredentials = new Set(['bearer', 'basic', 'dpop']);

/**
 * Whether `value` (an `Authorization` header as the Fetch API reads it: trimmed, two headers
 * joined by `, `) is credentials by RFC 9110's syntax: `Bearer a b c`, `Bearer` alone,
 * `Bearer to:ken` and two headers joined are not. Checked on at most 16 KiB (Node's own header
 * limit): the pattern has no nested repetition that backtracks, and a longer value is refused.
 */
export function wellFormedCredentials(value: string): boolean {
  if (value.length === 0 || value.length > 16_384) return false;
  if (!credentialsSyntax.test(value)) return false;
  return !(schemesNeedingCredentials.has(value.toLowerCase()) && !value.includes(' '));
}

/** The realm of every challenge the mock sends. */
export const mockRealm = 'evidence-harness';

/**
 * A `WWW-Authenticate` challenge (RFC 9110 §11.6.1). `scheme` is the scheme the caller should
 * use; when the credentials go in another header than Authorization (an API key), the challenge
 * is `ApiKey` with that header's name as a parameter, since no registered scheme says "this
 * header". `error` (RFC 6750 §3.1) is sent only with Bearer, whose registration defines it.
 */
export function authenticateChallenge(options: {
  readonly scheme: string;
  readonly header?: string;
  readonly realm?: string;
  readonly error?: 'invalid_token';
}): string {
  const realm = `realm="${options.realm ?? mockRealm}"`;
  if (options.header && options.header.toLowerCase() !== 'authorization') return `ApiKey ${realm}, header="${options.header}"`;
  const error = options.error && options.scheme.toLowerCase() === 'bearer' ? `, error="${options.error}"` : '';
  return `${options.scheme} ${realm}${error}`;
}
