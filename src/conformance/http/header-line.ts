/**
 * @module conformance/http/header-line
 * Parses the `Name: value` header lines of --header and --second-caller-header.
 */

/** Thrown for a header line that is not `Name: value`. */
export class HeaderLineError extends Error {
  override readonly name = 'HeaderLineError';
}

const tokenPattern = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** 'Authorization: Bearer a' → ['Authorization', 'Bearer a']. */
export function parseHeaderLine(line: string): [string, string] {
  const colon = line.indexOf(':');
  const name = colon > 0 ? line.slice(0, colon).trim() : '';
  // The line is not echoed: it may well hold a credential.
  if (!tokenPattern.test(name))
    throw new HeaderLineError(
      "a --header value is not a header line; write it as 'Name: value' (it is not shown: it may hold a credential).",
    );
  return [name, line.slice(colon + 1).trim()];
}

/** Header lines → a record; a repeated name keeps the last value. */
export function headersFromLines(lines: readonly string[]): Record<string, string> {
  return Object.fromEntries(lines.map(parseHeaderLine));
}
