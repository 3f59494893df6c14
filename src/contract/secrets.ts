/**
 * @module contract/secrets
 * The one secret scrubber: credentials never leave the runner, the proxy or a pact the mock
 * writes. Isomorphic (no Node built-in), so the engine can use it in a browser service worker;
 * src/conformance/secrets.ts re-exports it for the Node-side layers. Every credential
 * value it is given or learns is taken out of everything they print or write (their own
 * messages, reports, logs, HAR cassettes, and whatever a server sent back, since a server may
 * echo a request's credentials in its bodies). Reproductions name credentials by environment
 * variable instead (http/curl.ts).
 *
 * ```ts
 * const scrubber = new Scrubber({ secrets?, credentialHeaders?, credentialParameters?,
 *                                 maxLearntSecrets?, maxLearntCharacters?, placeholder? });
 * scrubber.learnFromRequest({ url, headers });  // credential headers, query parameters, userinfo
 * scrubber.learnHeader(name, value);            // one header, as learnFromRequest reads it
 * scrubber.learnFromAnswer({ headers });        // Set-Cookie values (and credential headers)
 * scrubber.scrub(text);  scrubber.scrubDeep(value);
 * scrubber.scrubHeaders(headers);               // credential header values replaced, the rest scrubbed
 * scrubber.scrubUrl(url);                       // userinfo out, credential parameter values replaced
 * scrubber.forExchange({ url?, requestHeaders?, answerHeaders?, placeholder? });  // a view: its secrets and one exchange's
 * ```
 *
 * What is a secret:
 * - the `secrets` given (the runner's callers' header values, a base URL's password);
 * - the values of **credential headers** (`defaultCredentialHeaders`, plus `credentialHeaders`):
 *   the value, its token after a scheme, a Basic value's decoded `user:password` and password,
 *   each long word of a value whose first word is no registered scheme (`sk_live_… v2`),
 *   and for Cookie / Set-Cookie each cookie's value and `name=value`;
 * - the values of **credential query parameters** (`defaultCredentialParameters`, plus
 *   `credentialParameters`), whatever the case of their name, in a URL absolute or not;
 * - the user name and password of a URL (`user:pass@host`).
 *
 * Each secret of 8 characters or more (`shortestScrubbed`) is scrubbed from free text in every
 * form it can take there: as is, JSON-escaped (also with `\/`), percent-encoded (as
 * encodeURIComponent and as a form, `+` for space; upper and lower-case hex) and HTML/XML-escaped.
 * A shorter one would blank ordinary words, so it is not scrubbed from free text; but a
 * credential header's or parameter's own value is replaced whatever its length (`scrubHeaders`,
 * `scrubUrl`: the name kept, `api_key=[REDACTED]`).
 *
 * Learnt secrets are bounded: the last `maxLearntSecrets` (4,096) distinct values learnt, in at
 * most `maxLearntCharacters` (8 Mi) characters of patterns; the oldest go first, so a long proxy
 * session cannot grow without bound. A value is refreshed each time it is learnt again.
 *
 * Cost: with nothing to scrub, `scrub` returns its text at once and learning from a request
 * without credentials reads its header names and looks for `?` and `@` in its URL, allocating
 * nothing; learning again the value learnt last (a client's token, sent on every request) is one
 * comparison, and another known value a Map lookup that makes it the newest. Up to `indexedFrom` patterns are found with indexOf each; beyond, one pass over the
 * text with a rolling hash of 8 characters finds them all, whatever their number.
 */
import { registeredAuthScheme } from './auth-schemes.js';
import { escapeMarkup } from './markup.js';

/** What replaces a credential by default, here and in curl reproductions (conformance/http/curl.ts). */
export const redacted = '[REDACTED]';

/** `text`'s UTF-8 bytes in base64, without Node's Buffer (this module runs in browsers too). */
function base64OfUtf8(text: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/**
 * base64 (or base64url) decoded as UTF-8, as leniently as Node's Buffer reads it: characters
 * outside the alphabet are skipped, padding is optional and decoding stops at the first `=`.
 */
function utf8OfBase64(text: string): string {
  let cleaned = text
    .split('=', 1)[0]!
    .replaceAll('-', '+')
    .replaceAll('_', '/')
    .replace(/[^A-Za-z0-9+/]/g, '');
  // A lone last character carries no whole byte; Buffer drops it too.
  if (cleaned.length % 4 === 1) cleaned = cleaned.slice(0, -1);
  const binary = atob(cleaned.padEnd(Math.ceil(cleaned.length / 4) * 4, '='));
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index += 1) bytes[index] = binary.charCodeAt(index);
  return new TextDecoder().decode(bytes);
}

/**
 * Shorter fragments are not scrubbed from free text: a token such as "test" or "code" would
 * blank out the runner's own words and markup (`<testsuites>` would stop being XML). The whole
 * header value ("Bearer test") is still scrubbed; a warning names what is not.
 */
export const shortestScrubbed = 8;

/**
 * Headers whose values are credentials, in lower case: the HTTP ones, API keys as common APIs
 * name them (Azure's Ocp-Apim-Subscription-Key, Google's X-Goog-Api-Key, GitLab's Private-Token,
 * HashiCorp's X-Vault-Token…), session and CSRF tokens, and this project's control token.
 */
export const defaultCredentialHeaders: readonly string[] = [
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'api-key',
  'apikey',
  'x-api-key',
  'x-apikey',
  'x-api-token',
  'x-auth-token',
  'x-access-token',
  'x-refresh-token',
  'x-session-token',
  'x-session-id',
  'x-csrf-token',
  'x-xsrf-token',
  'x-csrftoken',
  'private-token',
  'job-token',
  'deploy-token',
  'x-mock-token',
  'x-amz-security-token',
  'x-goog-api-key',
  'ocp-apim-subscription-key',
  'x-functions-key',
  'x-vault-token',
  'x-consul-token',
  'x-nomad-token',
  'x-shopify-access-token',
];

/**
 * Query parameters whose values are credentials, in lower case: OAuth's tokens and client
 * secret, API keys, signed URLs' signatures (Azure SAS `sig`, S3 and GCS presigned URLs).
 */
export const defaultCredentialParameters: readonly string[] = [
  'token',
  'access_token',
  'refresh_token',
  'id_token',
  'auth_token',
  'session_token',
  'api_key',
  'apikey',
  'api-key',
  'key',
  'sig',
  'signature',
  'password',
  'passwd',
  'pwd',
  'secret',
  'client_secret',
  'auth',
  'x-amz-signature',
  'x-amz-credential',
  'x-amz-security-token',
  'x-goog-signature',
  'x-goog-credential',
];

/** How many distinct learnt values a scrubber keeps by default (the oldest are forgotten first). */
export const defaultMaxLearntSecrets = 4096;
/** How many characters of patterns learnt values may hold by default (8 Mi: 16 MB of UTF-16). */
export const defaultMaxLearntCharacters = 8 * 1024 * 1024;
/** From this many patterns on, a text is searched for all at once rather than one by one. */
export const indexedFrom = 24;

/** Headers as Node, Fetch-derived records and HAR entries hold them. */
export type HeaderValues = Readonly<Record<string, string | readonly string[] | undefined>>;

export interface ScrubberOptions {
  /** Secrets known from the start (a caller's header values, a base URL's password). */
  readonly secrets?: Iterable<string>;
  /** More header names whose values are credentials (any case), besides `defaultCredentialHeaders`. */
  readonly credentialHeaders?: Iterable<string>;
  /** More query parameter names whose values are credentials (any case), besides `defaultCredentialParameters`. */
  readonly credentialParameters?: Iterable<string>;
  /** How many distinct learnt values are kept, from 1 (default 4,096). */
  readonly maxLearntSecrets?: number;
  /** How many characters of patterns learnt values may hold, from 1,024 (default 8 Mi). */
  readonly maxLearntCharacters?: number;
  /** What replaces a secret (default `[REDACTED]`; HAR cassettes use `[scrubbed]`). */
  readonly placeholder?: string;
}

/** The parts of one exchange that carry credentials. */
export interface ExchangeCredentials {
  readonly url?: string;
  readonly requestHeaders?: HeaderValues;
  readonly answerHeaders?: HeaderValues;
  /** The view's placeholder, when it is not this scrubber's (a HAR writes `[scrubbed]`). */
  readonly placeholder?: string;
}

/**
 * The strings to scrub for one credential header value: the value, and for `Scheme token`
 * values the token; for Basic, the decoded `user:password` and the password too. When the first
 * word is not a registered authentication scheme (auth-schemes.ts), it may be the credential
 * itself (`sk_live_… v2`): every word long enough to scrub (`shortestScrubbed`) is one too.
 */
export function secretFragments(value: string): string[] {
  const fragments = [value.trim()];
  const scheme = /^(\S+)\s+(.+)$/.exec(value.trim());
  if (scheme) {
    fragments.push(scheme[2]!.trim());
    if (registeredAuthScheme(scheme[1]!) === undefined)
      for (const word of value.trim().split(/\s+/)) if (word.length >= shortestScrubbed) fragments.push(word);
    if (scheme[1]!.toLowerCase() === 'basic') {
      const decoded = utf8OfBase64(scheme[2]!.trim());
      if (/^[^:]*:.+$/.test(decoded) && /^[\x20-\x7e]+$/.test(decoded)) fragments.push(decoded, decoded.slice(decoded.indexOf(':') + 1));
    }
  }
  return fragments;
}

/** A cookie's value without the double quotes RFC 6265 allows around it. */
function unquoted(value: string): string {
  return value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value;
}

/**
 * The strings to scrub for a Cookie header (every cookie) or a Set-Cookie header (its cookie,
 * not its attributes): each cookie's value and its `name=value`, and a Cookie header whole.
 */
function cookieFragments(value: string, setCookie: boolean): string[] {
  const fragments = setCookie ? [] : [value.trim()];
  for (const part of setCookie ? [value.split(';', 1)[0]!] : value.split(';')) {
    const pair = part.trim();
    const equals = pair.indexOf('=');
    if (equals === -1) fragments.push(pair);
    else fragments.push(pair, unquoted(pair.slice(equals + 1).trim()));
  }
  return fragments;
}

/** `text` percent-decoded as a form value is (`+` for space); as it is when it is not valid. */
function formDecoded(text: string): string {
  if (!text.includes('%') && !text.includes('+')) return text;
  try {
    return decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    return text;
  }
}

/** Characters that no form changes: JSON, percent-encoding and markup leave them as they are. */
const unreserved = /^[A-Za-z0-9._~-]*$/;

function lowerHex(text: string): string {
  return text.replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase());
}

/**
 * The forms a secret can take in output: as is, JSON-escaped (with `/` as `\/` too, as PHP
 * writes it), percent-encoded (encodeURIComponent, and as a form: `+` for space and `!'()~`
 * encoded; hex in upper and lower case) and HTML/XML-escaped (with `'` as `&#39;`, `&#x27;`,
 * `&apos;` or as is, and with only `& < >` escaped, as in element content).
 */
function variantsOf(secret: string): string[] {
  if (secret.length < shortestScrubbed) return [];
  // Most tokens (JWTs, hex, UUIDs, base64url) are unreserved characters alone: every form is the secret.
  if (unreserved.test(secret)) return [secret];
  const json = JSON.stringify(secret).slice(1, -1);
  const markup = escapeMarkup(secret);
  const variants = [
    secret,
    json,
    json.replaceAll('/', '\\/'),
    markup,
    markup.replaceAll('&#39;', "'"),
    markup.replaceAll('&#39;', '&#x27;'),
    markup.replaceAll('&#39;', '&apos;'),
    markup.replaceAll('&#39;', "'").replaceAll('&quot;', '"'),
  ];
  try {
    const component = encodeURIComponent(secret);
    const form = new URLSearchParams([['', secret]]).toString().slice(1);
    variants.push(component, lowerHex(component), component.replaceAll('%20', '+'), form, lowerHex(form));
  } catch {
    // A lone surrogate cannot be percent-encoded: the secret has no such form.
  }
  return [...new Set(variants)].filter((variant) => variant.length >= shortestScrubbed);
}

/** The secrets of a URL's userinfo: the password (as typed and decoded), user:password, the Basic value. */
function userinfoSecrets(url: URL): { secrets: string[]; authorization?: string } {
  if (!url.username && !url.password) return { secrets: [] };
  const decode = (text: string) => {
    try {
      return decodeURIComponent(text);
    } catch {
      return text;
    }
  };
  const user = decode(url.username);
  const password = decode(url.password);
  const pair = `${user}:${password}`;
  const token = base64OfUtf8(pair);
  // With no password, the user name is the credential (https://TOKEN@host).
  const secrets = password ? [password, url.password, pair, `${url.username}:${url.password}`] : [user, url.username];
  return { secrets: [...secrets, token, `Basic ${token}`], authorization: `Basic ${token}` };
}

/** A URL that starts with `scheme://userinfo@`: the end of its userinfo's `@`, or -1. */
function userinfoEnd(url: string): number {
  const at = url.indexOf('@');
  if (at === -1) return -1;
  const authority = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/?#]*@/.exec(url);
  return authority ? authority[0].length : -1;
}

const hashBase = 0x01000193;
/** hashBase to the power shortestScrubbed - 1, modulo 2³². */
const hashBasePower = (() => {
  let power = 1;
  for (let step = 1; step < shortestScrubbed; step += 1) power = Math.imul(power, hashBase);
  return power;
})();
/** 2¹⁸ one-byte buckets (256 KiB), allocated only for a set of `indexedFrom` patterns or more. */
const bucketBits = 18;

/** The hash of the 8 characters of `text` from `at`. */
function windowHash(text: string, at: number): number {
  let hash = 0;
  for (let index = at; index < at + shortestScrubbed; index += 1) hash = (Math.imul(hash, hashBase) + text.charCodeAt(index)) | 0;
  return hash;
}

/** The hash of the window from `at + 1`, given the hash of the window from `at`. */
function rolled(text: string, at: number, hash: number): number {
  return (Math.imul((hash - Math.imul(text.charCodeAt(at), hashBasePower)) | 0, hashBase) + text.charCodeAt(at + shortestScrubbed)) | 0;
}

function bucketOf(hash: number): number {
  return Math.imul(hash, 0x9e3779b1) >>> (32 - bucketBits);
}

/** A pattern in the index, found by one of its windows of 8 characters (its anchor). */
interface Anchored {
  readonly pattern: string;
  /** Where the anchor starts in the pattern. */
  readonly offset: number;
  readonly hash: number;
  /** The scan that `last` belongs to, and the range of this pattern's latest occurrence in it. */
  scan: number;
  last: [number, number] | undefined;
}

/**
 * Patterns of 8 characters or more, each counted (two secrets may share a form). While they are
 * few, a text is searched with indexOf for each. From `indexedFrom` on, it is searched for all at
 * once, in one pass with a rolling hash of 8 characters: each pattern is indexed by the window of
 * it that fewest others share (not its start: JWTs all begin `eyJhbGci`, API keys `sk_live_`),
 * and a table of one-byte bucket counts in front of the map makes a position that starts no
 * anchor cost a few instructions.
 */
class PatternSet {
  private readonly counts = new Map<string, number>();
  private index:
    | { readonly buckets: Uint8Array; readonly byHash: Map<number, Anchored[]>; readonly anchors: Map<string, Anchored>; scans: number }
    | undefined;

  get size(): number {
    return this.counts.size;
  }

  add(pattern: string): void {
    const count = this.counts.get(pattern);
    this.counts.set(pattern, (count ?? 0) + 1);
    if (count === undefined && this.index) this.anchor(pattern);
  }

  remove(pattern: string): void {
    const count = this.counts.get(pattern);
    if (count === undefined) return;
    if (count > 1) {
      this.counts.set(pattern, count - 1);
      return;
    }
    this.counts.delete(pattern);
    const anchored = this.index?.anchors.get(pattern);
    if (!anchored) return;
    const { buckets, byHash, anchors } = this.index!;
    anchors.delete(pattern);
    const bucket = bucketOf(anchored.hash);
    // A count that reached 255 stays there: the bucket is only a filter, and "maybe" is always safe.
    if (buckets[bucket]! < 255) buckets[bucket]! -= 1;
    const list = byHash.get(anchored.hash)!;
    const at = list.indexOf(anchored);
    list[at] = list[list.length - 1]!;
    list.pop();
    if (list.length === 0) byHash.delete(anchored.hash);
  }

  private anchor(pattern: string): void {
    const { buckets, byHash, anchors } = this.index!;
    let best = { offset: 0, hash: windowHash(pattern, 0), load: Number.POSITIVE_INFINITY };
    for (let offset = 0, hash = best.hash; ; offset += 1) {
      const load = byHash.get(hash)?.length ?? 0;
      if (load < best.load) best = { offset, hash, load };
      if (load === 0 || offset + shortestScrubbed >= pattern.length) break;
      hash = rolled(pattern, offset, hash);
    }
    const anchored: Anchored = { pattern, offset: best.offset, hash: best.hash, scan: 0, last: undefined };
    anchors.set(pattern, anchored);
    const bucket = bucketOf(best.hash);
    if (buckets[bucket]! < 255) buckets[bucket]! += 1;
    const list = byHash.get(best.hash);
    if (list) list.push(anchored);
    else byHash.set(best.hash, [anchored]);
  }

  /** Adds the ranges where a pattern occurs in `text`; overlapping occurrences of one pattern make one range. */
  collect(text: string, ranges: [number, number][]): void {
    if (this.counts.size === 0 || text.length < shortestScrubbed) return;
    if (this.counts.size < indexedFrom) {
      for (const pattern of this.counts.keys()) {
        let last: [number, number] | undefined;
        for (let at = text.indexOf(pattern); at !== -1; at = text.indexOf(pattern, at + 1)) {
          // 4 MB of a repeated secret is one range, not millions.
          if (last && at <= last[1]) last[1] = at + pattern.length;
          else {
            last = [at, at + pattern.length];
            ranges.push(last);
          }
        }
      }
      return;
    }
    if (!this.index) {
      this.index = { buckets: new Uint8Array(1 << bucketBits), byHash: new Map(), anchors: new Map(), scans: 0 };
      for (const pattern of this.counts.keys()) this.anchor(pattern);
    }
    const index = this.index;
    const scan = ++index.scans;
    const { buckets, byHash } = index;
    const end = text.length - shortestScrubbed;
    let hash = windowHash(text, 0);
    for (let at = 0; at <= end; at += 1) {
      if (buckets[bucketOf(hash)] !== 0) {
        const candidates = byHash.get(hash);
        if (candidates) for (const anchored of candidates) found(text, at, anchored, scan, ranges);
      }
      if (at < end) hash = rolled(text, at, hash);
    }
  }
}

/** Records an occurrence of `anchored` whose anchor is at `at`, if the whole pattern is there. */
function found(text: string, at: number, anchored: Anchored, scan: number, ranges: [number, number][]): void {
  const start = at - anchored.offset;
  if (start < 0 || !text.startsWith(anchored.pattern, start)) return;
  const stop = start + anchored.pattern.length;
  if (anchored.scan !== scan) {
    anchored.scan = scan;
    anchored.last = undefined;
  }
  // One pattern's occurrences come in order: overlapping ones extend one range.
  if (anchored.last && start <= anchored.last[1]) anchored.last[1] = stop;
  else {
    anchored.last = [start, stop];
    ranges.push(anchored.last);
  }
}

/** How a header is read: its value a credential, a cookie list, a Set-Cookie, or a URL. */
type HeaderKind = 'credential' | 'cookie' | 'set-cookie' | 'url';

/** The strings to scrub for a value of each kind of credential header. */
const fragmentsOfKind: Readonly<Record<Exclude<HeaderKind, 'url'>, (value: string) => string[]>> = {
  credential: secretFragments,
  cookie: (value) => cookieFragments(value, false),
  'set-cookie': (value) => cookieFragments(value, true),
};

/** What a scrubber reads credentials from, shared by the views it makes. */
interface CredentialNames {
  /** Header names in lower case and their kind: one lookup per header on the hot path. */
  readonly headers: ReadonlyMap<string, HeaderKind>;
  readonly parameters: ReadonlySet<string>;
}

/** Headers whose value is a URL, which may carry credentials in its query, fragment or userinfo. */
const urlHeaders = ['location', 'content-location', 'referer'];

function headerKinds(credentialHeaders: Iterable<string>): Map<string, HeaderKind> {
  const kinds = new Map<string, HeaderKind>(urlHeaders.map((name) => [name, 'url']));
  for (const name of credentialHeaders) kinds.set(name, 'credential');
  kinds.set('cookie', 'cookie');
  kinds.set('set-cookie', 'set-cookie');
  return kinds;
}

const defaultNames: CredentialNames = { headers: headerKinds(defaultCredentialHeaders), parameters: new Set(defaultCredentialParameters) };

/** RFC 9110's token: what a header name may be. */
const headerName = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function namesFor(options: ScrubberOptions): CredentialNames {
  if (options.credentialHeaders === undefined && options.credentialParameters === undefined) return defaultNames;
  const extra = [...(options.credentialHeaders ?? [])];
  for (const name of extra)
    if (!headerName.test(name)) throw new RangeError(`Scrubber: credentialHeaders: ${JSON.stringify(name)} is not a header name`);
  const headers = headerKinds([...defaultCredentialHeaders, ...extra.map((name) => name.toLowerCase())]);
  const parameters = new Set(defaultCredentialParameters);
  for (const name of options.credentialParameters ?? []) {
    if (name.length === 0) throw new RangeError('Scrubber: credentialParameters: a parameter name is empty');
    parameters.add(name.toLowerCase());
  }
  return { headers, parameters };
}

function checkedBound(name: string, value: number | undefined, fallback: number, least: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < least)
    throw new RangeError(`Scrubber: ${name} must be a whole number from ${least}, got ${value}`);
  return value;
}

/** Values that are this scrubber's own or a HAR's marks: never learnt as secrets. */
const marks = new Set([redacted, '[scrubbed]']);

export class Scrubber {
  private names: CredentialNames;
  private readonly fixed = new PatternSet();
  /** Learnt values, oldest first, with the patterns each added. */
  private readonly learnt = new Map<string, { readonly patterns: readonly string[]; readonly characters: number }>();
  private readonly learntPatterns = new PatternSet();
  private learntCharacters = 0;
  /** The last key of `learnt`: never forgotten while it is the newest (one value always fits the bounds). */
  private newest: string | undefined;
  /** A view's parents' pattern sets (`forExchange`). */
  private inherited: readonly PatternSet[] = [];
  private readonly maxLearntSecrets: number;
  private readonly maxLearntCharacters: number;
  /** What replaces a secret. */
  readonly placeholder: string;
  /** Fragments too short to scrub from free text (a warning says so). */
  readonly tooShort: readonly string[];

  /**
   * `new Scrubber(secrets)` (the secrets alone) or `new Scrubber(options)`. Every bound and
   * name is checked here, once: a RangeError names the option.
   */
  constructor(options: ScrubberOptions | Iterable<string> = {}) {
    const settings: ScrubberOptions =
      typeof (options as Partial<Iterable<string>>)[Symbol.iterator] === 'function'
        ? { secrets: options as Iterable<string> }
        : (options as ScrubberOptions);
    this.names = namesFor(settings);
    this.maxLearntSecrets = checkedBound('maxLearntSecrets', settings.maxLearntSecrets, defaultMaxLearntSecrets, 1);
    this.maxLearntCharacters = checkedBound('maxLearntCharacters', settings.maxLearntCharacters, defaultMaxLearntCharacters, 1024);
    this.placeholder = settings.placeholder ?? redacted;
    if (this.placeholder.length === 0) throw new RangeError('Scrubber: placeholder must not be empty');
    const unique = [...new Set([...(settings.secrets ?? [])].filter((secret) => secret.length > 0))];
    this.tooShort = unique.filter((secret) => secret.length < shortestScrubbed);
    for (const pattern of new Set(unique.flatMap(variantsOf))) this.fixed.add(pattern);
  }

  /** Whether there is anything to scrub from free text. */
  get active(): boolean {
    if (this.fixed.size > 0 || this.learntPatterns.size > 0) return true;
    for (const set of this.inherited) if (set.size > 0) return true;
    return false;
  }

  /** How many distinct values this scrubber has learnt and keeps (at most `maxLearntSecrets`). */
  get learntCount(): number {
    return this.learnt.size;
  }

  /** Whether a header's values are credentials (any case). */
  isCredentialHeader(name: string): boolean {
    const kind = this.kindOf(name);
    return kind !== undefined && kind !== 'url';
  }

  private kindOf(name: string): HeaderKind | undefined {
    // Node gives header names in lower case: the second lookup is for the others.
    return this.names.headers.get(name) ?? this.names.headers.get(name.toLowerCase());
  }

  /** Whether a query parameter's values are credentials (any case). */
  isCredentialParameter(name: string): boolean {
    return this.names.parameters.has(name) || this.names.parameters.has(name.toLowerCase());
  }

  /** Learns the secrets a request carries: credential header values, credential query parameters, userinfo. */
  learnFromRequest(request: { readonly url?: string; readonly headers?: HeaderValues }): void {
    if (request.headers) this.learnHeaders(request.headers);
    if (request.url !== undefined) this.learnUrl(request.url);
  }

  /**
   * Learns the secrets an answer carries: each Set-Cookie's cookie value (the upstream may echo
   * it later, in another exchange), and credential headers (a login answering a token).
   */
  learnFromAnswer(answer: { readonly headers?: HeaderValues }): void {
    if (answer.headers) this.learnHeaders(answer.headers);
  }

  /**
   * A scrubber for one exchange: this one's secrets (and the names it reads credentials from),
   * plus the exchange's own, which this one does not learn. For writing an exchange after this
   * scrubber may have forgotten its secrets (a HAR built at the end of a long session).
   */
  forExchange(exchange: ExchangeCredentials = {}): Scrubber {
    const view = new Scrubber({
      maxLearntSecrets: this.maxLearntSecrets,
      maxLearntCharacters: this.maxLearntCharacters,
      placeholder: exchange.placeholder ?? this.placeholder,
    });
    view.names = this.names;
    view.inherited = [this.fixed, this.learntPatterns, ...this.inherited];
    if (exchange.requestHeaders) view.learnHeaders(exchange.requestHeaders);
    if (exchange.url !== undefined) view.learnUrl(exchange.url);
    if (exchange.answerHeaders) view.learnHeaders(exchange.answerHeaders);
    return view;
  }

  /**
   * Learns one header's value as `learnFromRequest` would (a header that carries no credential
   * teaches nothing), without a record of headers built for it: the engine calls it for each
   * credential header of every request.
   */
  learnHeader(name: string, value: string): void {
    const kind = this.kindOf(name);
    if (kind === 'url') this.learnUrl(value);
    else if (kind !== undefined) this.learn(value, fragmentsOfKind[kind]);
  }

  private learnHeaders(headers: HeaderValues): void {
    for (const name in headers) {
      const kind = this.kindOf(name);
      if (kind === undefined) continue;
      const value = headers[name];
      if (value === undefined) continue;
      if (kind === 'url') {
        if (typeof value === 'string') this.learnUrl(value);
        continue;
      }
      const fragments = fragmentsOfKind[kind];
      if (typeof value === 'string') this.learn(value, fragments);
      else for (const one of value) this.learn(one, fragments);
    }
  }

  private learnUrl(url: string): void {
    const query = url.indexOf('?');
    if (query !== -1 || url.includes('#'))
      forEachParameter(url, query, (name, start, end) => {
        if (!this.isCredentialParameter(name)) return;
        const raw = url.slice(start, end);
        this.learn(raw, (value) => [value, formDecoded(value)]);
      });
    const end = userinfoEnd(url);
    if (end !== -1 && URL.canParse(url)) {
      const parsed = new URL(url);
      this.learn(`${parsed.username}:${parsed.password}`, () => userinfoSecrets(parsed).secrets);
    }
  }

  /** Keeps a value's patterns, the newest last; forgets the oldest past either bound. */
  private learn(value: string, fragmentsOf: (value: string) => readonly string[]): void {
    // A client sends its token on every request: the value learnt last is already the newest.
    if (value === this.newest) return;
    if (value.length === 0 || marks.has(value) || value === this.placeholder) return;
    const known = this.learnt.get(value);
    if (known) {
      this.learnt.delete(value);
      this.learnt.set(value, known);
      this.newest = value;
      return;
    }
    const patterns = [...new Set(fragmentsOf(value).flatMap((fragment) => (marks.has(fragment) ? [] : variantsOf(fragment))))];
    const characters = patterns.reduce((sum, pattern) => sum + pattern.length, 0);
    // A value larger than the whole budget is not learnt (its header or parameter is still replaced by name).
    if (characters > this.maxLearntCharacters) return;
    for (const pattern of patterns) this.learntPatterns.add(pattern);
    this.learnt.set(value, { patterns, characters });
    this.newest = value;
    this.learntCharacters += characters;
    while (this.learnt.size > this.maxLearntSecrets || this.learntCharacters > this.maxLearntCharacters) {
      const [oldest, entry] = this.learnt.entries().next().value!;
      this.learnt.delete(oldest);
      this.learntCharacters -= entry.characters;
      for (const pattern of entry.patterns) this.learntPatterns.remove(pattern);
    }
  }

  /**
   * The text with every occurrence of every secret replaced by one placeholder per run of
   * secret characters. Occurrences are found in the original text and merged where they
   * overlap or touch: replacing one secret after another would break an overlapping second
   * secret in two and leave its tail, which no pattern matches any more, in the output.
   */
  scrub(text: string): string {
    if (!this.active) return text;
    const ranges: [number, number][] = [];
    this.fixed.collect(text, ranges);
    this.learntPatterns.collect(text, ranges);
    for (const set of this.inherited) set.collect(text, ranges);
    if (ranges.length === 0) return text;
    ranges.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
    const parts: string[] = [];
    let kept = 0;
    let current = ranges[0]!;
    for (let index = 1; index < ranges.length; index += 1) {
      const range = ranges[index]!;
      if (range[0] <= current[1]) current = [current[0], Math.max(current[1], range[1])];
      else {
        parts.push(text.slice(kept, current[0]), this.placeholder);
        kept = current[1];
        current = range;
      }
    }
    parts.push(text.slice(kept, current[0]), this.placeholder, text.slice(current[1]));
    return parts.join('');
  }

  /**
   * A copy of a JSON-like value with every string value scrubbed. Keys are the report's own
   * names (check names, field names), never what a server sent, and stay as they are.
   */
  scrubDeep<T>(value: T): T {
    if (!this.active) return value;
    const walk = (item: unknown): unknown => {
      if (typeof item === 'string') return this.scrub(item);
      if (Array.isArray(item)) return item.map(walk);
      if (item && typeof item === 'object') return Object.fromEntries(Object.entries(item).map(([key, inner]) => [key, walk(inner)]));
      return item;
    };
    return walk(value) as T;
  }

  /**
   * Headers with each credential header's value replaced by the placeholder, whatever its
   * length, and every other value scrubbed. The names are kept. A copy, or the headers
   * themselves when nothing in them changes.
   */
  scrubHeaders<H extends HeaderValues>(headers: H): H {
    let copy: Record<string, string | readonly string[] | undefined> | undefined;
    for (const name in headers) {
      const value = headers[name];
      if (value === undefined) continue;
      const kind = this.kindOf(name);
      const url = kind === 'url';
      const credential = kind !== undefined && !url;
      if (!credential && !url && !this.active) continue;
      const scrubOne = (one: string) => (credential ? this.placeholder : url ? this.scrubUrl(one) : this.scrub(one));
      const scrubbed = typeof value === 'string' ? scrubOne(value) : value.map(scrubOne);
      if (typeof scrubbed === 'string' ? scrubbed === value : scrubbed.every((one, index) => one === value[index])) continue;
      copy ??= { ...headers };
      copy[name] = scrubbed;
    }
    return (copy ?? headers) as H;
  }

  /**
   * A URL (absolute, or a path with a query) without its userinfo, with each credential query
   * parameter's value replaced by the placeholder whatever its length (`api_key=[REDACTED]`),
   * and every other secret scrubbed.
   */
  scrubUrl(url: string): string {
    let result = url;
    const userinfo = userinfoEnd(result);
    if (userinfo !== -1) {
      const scheme = result.indexOf('://') + 3;
      result = result.slice(0, scheme) + result.slice(userinfo);
    }
    const query = result.indexOf('?');
    if (query !== -1 || result.includes('#')) {
      const source = result;
      const parts: string[] = [];
      let kept = 0;
      forEachParameter(source, query, (name, start, end) => {
        if (!this.isCredentialParameter(name) || start === end) return;
        parts.push(source.slice(kept, start), this.placeholder);
        kept = end;
      });
      if (parts.length > 0) result = parts.join('') + source.slice(kept);
    }
    return this.scrub(result);
  }
}

/**
 * Calls `visit` with each parameter's name (form-decoded) and where its value starts and ends in
 * `url`, for the query (from the `?` at `query`) and for a fragment written as one
 * (`#access_token=…&token_type=bearer`, OAuth's implicit grant).
 */
function forEachParameter(url: string, query: number, visit: (name: string, start: number, end: number) => void): void {
  const hash = url.indexOf('#', query === -1 ? 0 : query);
  if (query !== -1) parametersIn(url, query + 1, hash === -1 ? url.length : hash, visit);
  if (hash !== -1) parametersIn(url, hash + 1, url.length, visit);
}

function parametersIn(url: string, from: number, end: number, visit: (name: string, start: number, end: number) => void): void {
  let start = from;
  while (start < end) {
    let stop = url.indexOf('&', start);
    if (stop === -1 || stop > end) stop = end;
    const equals = url.indexOf('=', start);
    if (equals !== -1 && equals < stop) visit(formDecoded(url.slice(start, equals)), equals + 1, stop);
    start = stop + 1;
  }
}

/**
 * A scrubber for the credentials of both callers' headers, header values not yet parsed into
 * headers (a command line's), and any extra secrets (a URL's password).
 */
export function scrubberFor(options: {
  headers?: Readonly<Record<string, string>>;
  secondCallerHeaders?: Readonly<Record<string, string>>;
  headerValues?: readonly string[];
  extra?: readonly string[];
}): Scrubber {
  const values = [
    ...Object.values(options.headers ?? {}),
    ...Object.values(options.secondCallerHeaders ?? {}),
    ...(options.headerValues ?? []),
  ];
  return new Scrubber({ secrets: [...values.flatMap(secretFragments), ...(options.extra ?? [])] });
}

/** A base URL with its user name and password taken out, and them as an Authorization header. */
export interface BaseUrlCredentials {
  /** The base URL without userinfo: what is printed and requested. */
  readonly baseUrl: string;
  /** `Basic base64(user:password)`, when the URL had userinfo. */
  readonly authorization?: string;
  /** Everything to scrub: the password (as typed and decoded), user:password, the header value. */
  readonly secrets: readonly string[];
}

/**
 * Takes `user:password@` out of a base URL. Node's http client would send it as Basic
 * credentials silently, and every message naming the URL would print it.
 */
export function credentialsFromBaseUrl(baseUrl: string): BaseUrlCredentials {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return { baseUrl, secrets: [] };
  }
  const { secrets, authorization } = userinfoSecrets(url);
  if (!authorization) return { baseUrl, secrets: [] };
  url.username = '';
  url.password = '';
  return { baseUrl: url.href, authorization, secrets };
}
