/**
 * @module conformance/http/curl
 * Turns a sent request into a curl command that can be pasted into a shell as it is, so a
 * failure in a CI log can be reproduced from a terminal. Credentials never appear in it: each
 * secret header reads its value from an environment variable (`-H "Authorization: $EH_AUTH"`),
 * and a body too long to paste is read from a file the runner wrote beside its reports.
 */
import { redacted } from '../../contract/secrets.js';
import type { SentRequest } from '../exchange.js';
import { writtenTarget } from './bounded-client.js';

/** Header names whose values are always credentials. */
const alwaysSecret = new Set(['authorization', 'proxy-authorization', 'cookie', 'x-api-key', 'api-key']);

/** Whether a header carries credentials whoever gave it (Authorization, Cookie, X-Api-Key…). */
export function isCredentialHeader(name: string): boolean {
  return alwaysSecret.has(name.toLowerCase());
}

export { redacted };

/** Bodies longer than this are not inlined: the command would be unusable. */
export const inlineBodyLimit = 16 * 1024;

function quote(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}

/**
 * A header line whose value holds bytes outside printable ASCII (a key sent as UTF-8, a no-break
 * space): bash's $'…' with each such byte as \xHH, so the shell passes curl the bytes that were
 * sent. A header value is one character per byte (latin1), as Node's client writes it.
 */
function headerArgument(line: string): string {
  if (/^[\x20-\x7e]*$/.test(line)) return quote(line);
  const escaped = [...line]
    .map((character) => {
      const code = character.codePointAt(0)!;
      if (character === "'" || character === '\\') return `\\${character}`;
      if (code >= 0x20 && code <= 0x7e) return character;
      // A character beyond one byte cannot have been sent as one: written as its UTF-8 bytes.
      const bytes = code <= 0xff ? [code] : [...Buffer.from(character, 'utf8')];
      return bytes.map((byte) => `\\x${byte.toString(16).padStart(2, '0')}`).join('');
    })
    .join('');
  return `$'${escaped}'`;
}

/** Inside double quotes, only $, `, " and \ are special to a POSIX shell. */
function doubleQuoted(text: string): string {
  return text.replace(/[$`"\\]/g, (character) => `\\${character}`);
}

export interface CurlOptions {
  /** Further header names whose values are secret (those given with --header). */
  readonly secretHeaders?: Iterable<string>;
  /** Whose credentials the request carried: 1 (--header, the default) or 2 (--second-caller-header). */
  readonly caller?: 1 | 2;
  /** Where the body was written when it is too long to inline; the command reads it from there. */
  readonly bodyFile?: string;
}

function secretNames(options: CurlOptions): Set<string> {
  return new Set([...alwaysSecret, ...[...(options.secretHeaders ?? [])].map((name) => name.toLowerCase())]);
}

/**
 * The environment variable a reproduction reads a credential from: EH_ and the header's name
 * (Authorization shortened to AUTH), EH_SECOND_ for the second caller. 'X-Api-Key' → EH_X_API_KEY.
 */
export function credentialVariable(header: string, caller: 1 | 2 = 1): string {
  const name = header.toLowerCase() === 'authorization' ? 'AUTH' : header.toUpperCase().replace(/[^A-Z0-9]+/g, '_');
  return `EH_${caller === 2 ? 'SECOND_' : ''}${name}`;
}

/** Redacts the values of secret headers (case-insensitively). */
export function redactHeaders(headers: Readonly<Record<string, string>>, options: CurlOptions = {}): Record<string, string> {
  const secret = secretNames(options);
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, secret.has(name.toLowerCase()) ? redacted : value]));
}

export function toCurl(request: SentRequest, options: CurlOptions = {}): string {
  const secret = secretNames(options);
  const parts = ['curl', '-i', '-X', request.method, quote(request.url)];
  // curl resolves dot segments too, unless told to send the path as it is.
  if (writtenTarget(request.url)) parts.push('--path-as-is');
  for (const [name, value] of Object.entries(request.headers)) {
    parts.push(
      '-H',
      secret.has(name.toLowerCase())
        ? `"${doubleQuoted(name)}: $${credentialVariable(name, options.caller)}"`
        : headerArgument(`${name}: ${value}`),
    );
  }
  if (request.body !== undefined) {
    if (request.body.length <= inlineBodyLimit) parts.push('--data-binary', quote(request.body));
    else if (options.bodyFile) parts.push('--data-binary', quote(`@${options.bodyFile}`));
    else
      parts.push(
        `# the body (${Buffer.byteLength(request.body)} bytes) is too long to paste and was not written to a file; it began ${quote(request.body.slice(0, 80))}`,
      );
  }
  return parts.join(' ');
}
