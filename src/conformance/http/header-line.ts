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
  const value = line.slice(colon + 1).trim();
  // What an HTTP header value may hold (visible ASCII, space, tab); anything else would only
  // fail later, mid-run, as an unexplained error.
  for (let index = 0; index < value.length; index += 1) {
    const code = value.charCodeAt(index);
    if (code === 0x7f || (code < 0x20 && code !== 0x09) || code > 0xff) {
      throw new HeaderLineError(
        `the --header '${name}' has a character a header value cannot hold (at position ${index + 1}); use ASCII (the value is not shown: it may hold a credential).`,
      );
    }
  }
  return [name, value];
}

/** Header lines → a record; a repeated name keeps the last value. */
export function headersFromLines(lines: readonly string[]): Record<string, string> {
  return Object.fromEntries(lines.map(parseHeaderLine));
}
