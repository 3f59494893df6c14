/**
 * @module conformance/http/curl
 * Turns a sent request into a copy-pasteable curl command, with credentials redacted, so a
 * failure in a CI log can be reproduced from a terminal.
 */
import type { SentRequest } from '../exchange.js';

/** Header names whose values are always credentials. */
const alwaysSecret = new Set(['authorization', 'proxy-authorization', 'cookie', 'x-api-key', 'api-key']);

/** Bodies longer than this are not inlined: the command would be unusable. */
const inlineLimit = 16 * 1024;

export const redacted = '[REDACTED]';

function quote(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}

export interface CurlOptions {
  /** Further header names whose values are secret (those given with --header). */
  readonly secretHeaders?: Iterable<string>;
}

/** Redacts the values of secret headers (case-insensitively). */
export function redactHeaders(headers: Readonly<Record<string, string>>, options: CurlOptions = {}): Record<string, string> {
  const secret = new Set([...alwaysSecret, ...[...(options.secretHeaders ?? [])].map((name) => name.toLowerCase())]);
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, secret.has(name.toLowerCase()) ? redacted : value]));
}

export function toCurl(request: SentRequest, options: CurlOptions = {}): string {
  const parts = ['curl', '-i', '-X', request.method, quote(request.url)];
  for (const [name, value] of Object.entries(redactHeaders(request.headers, options))) parts.push('-H', quote(`${name}: ${value}`));
  if (request.body !== undefined) {
    if (request.body.length <= inlineLimit) {
      parts.push('--data-binary', quote(request.body));
    } else {
      // Too long to paste: say what it was, so it can be rebuilt (the failure's input says how).
      parts.push('--data-binary', `@body.json  # ${request.body.length} characters, starting ${quote(request.body.slice(0, 80))}`);
    }
  }
  return parts.join(' ');
}
