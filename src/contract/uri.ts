/**
 * @module contract/uri
 * The one meaning of `format: uri` in this project: an absolute URI per RFC 3986 section 3
 * (scheme ":" hier-part ["?" query] ["#" fragment]), ASCII only. Both the engine (through zod)
 * and every JSON Schema validator the project builds (ajv's `uri` format) use this function, so
 * the mock and the conformance runner can never disagree about what a valid `uri` is.
 */

const unreserved = 'A-Za-z0-9\\-._~';
const subDelims = "!$&'()*+,;=";
const pctEncoded = '%[0-9A-Fa-f]{2}';
const pchar = `(?:[${unreserved}${subDelims}:@]|${pctEncoded})`;
const userinfo = `(?:[${unreserved}${subDelims}:]|${pctEncoded})*`;
const regName = `(?:[${unreserved}${subDelims}]|${pctEncoded})*`;
const ipLiteral = `\\[(?:[0-9A-Fa-f:.]+|v[0-9A-Fa-f]+\\.[${unreserved}${subDelims}:]+)\\]`;
const authority = `(?:${userinfo}@)?(?:${ipLiteral}|${regName})(?::[0-9]*)?`;
const pathAbempty = `(?:/${pchar}*)*`;
const pathAbsolute = `/(?:${pchar}+(?:/${pchar}*)*)?`;
const pathRootless = `${pchar}+(?:/${pchar}*)*`;
const hierPart = `(?://${authority}${pathAbempty}|${pathAbsolute}|${pathRootless}|)`;
const queryOrFragment = `(?:${pchar}|[/?])*`;

const absoluteUri = new RegExp(`^[A-Za-z][A-Za-z0-9+.\\-]*:${hierPart}(?:\\?${queryOrFragment})?(?:#${queryOrFragment})?$`);

/** True when `value` is an absolute URI (RFC 3986 `URI`). */
export function isUri(value: string): boolean {
  return absoluteUri.test(value);
}
