/**
 * @module contract/media-type
 * The one reading of a Content-Type's media type in this project (RFC 9110 §8.3.1):
 * `media-type = type "/" subtype parameters`, type and subtype each a token, compared without
 * regard to case. Used by the engine (is a request body JSON?), the response validator and the
 * runner's checks (is this media type documented?) and the proxy's request rules, so they agree
 * about what a Content-Type says. Imports nothing.
 */

/** `type "/" subtype`, each an RFC 9110 §5.6.2 token. */
const typeAndSubtype = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+\/[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * A Content-Type's essence: its type/subtype lower-cased, without parameters
 * (`Application/JSON; charset=utf-8` → `application/json`). Null when the header is absent or
 * its value does not start with a `type/subtype` (`json`, `application/json x`, a list of two).
 * Spaces and tabs around it are ignored, as the grammar allows before a parameter's `;`.
 */
export function essence(contentType: string | null | undefined): string | null {
  if (contentType === null || contentType === undefined) return null;
  const end = contentType.indexOf(';');
  const candidate = (end === -1 ? contentType : contentType.slice(0, end)).replace(/^[ \t]+|[ \t]+$/g, '');
  return typeAndSubtype.test(candidate) ? candidate.toLowerCase() : null;
}
