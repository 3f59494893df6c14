/**
 * @module conformance/secrets
 * Credentials never leave the runner. Every credential value given to it (the callers' header
 * values, the user name and password of a base URL) is scrubbed from everything it prints or
 * writes: its own messages, and whatever the server sent back, since a server under
 * construction may echo a request's headers in its bodies. Reproductions name credentials by
 * environment variable instead (http/curl.ts).
 */
import { escapeMarkup } from '../contract/markup.js';
import { redacted } from './http/curl.js';

/**
 * Shorter fragments are not scrubbed from free text: a token such as "test" or "code" would
 * blank out the runner's own words and markup (`<testsuites>` would stop being XML). The whole
 * header value ("Bearer test") is still scrubbed; a warning names what is not.
 */
export const shortestScrubbed = 8;

/**
 * The strings to scrub for one credential header value: the value, and for `Scheme token`
 * values the token; for Basic, the decoded `user:password` and the password too.
 */
export function secretFragments(value: string): string[] {
  const fragments = [value.trim()];
  const scheme = /^(\S+)\s+(.+)$/.exec(value.trim());
  if (scheme) {
    fragments.push(scheme[2]!.trim());
    if (scheme[1]!.toLowerCase() === 'basic') {
      const decoded = Buffer.from(scheme[2]!.trim(), 'base64').toString('utf8');
      if (/^[^:]*:.+$/.test(decoded) && /^[\x20-\x7e]+$/.test(decoded)) fragments.push(decoded, decoded.slice(decoded.indexOf(':') + 1));
    }
  }
  return fragments;
}

/** The forms a secret can take in output: as is, JSON-escaped, percent-encoded, HTML/XML-escaped. */
function variantsOf(secret: string): string[] {
  return [
    secret,
    JSON.stringify(secret).slice(1, -1),
    encodeURIComponent(secret),
    escapeMarkup(secret),
    escapeMarkup(secret).replaceAll('&#39;', "'"),
  ];
}

export class Scrubber {
  private readonly patterns: string[];
  /** Fragments too short to scrub from free text (a warning says so). */
  readonly tooShort: readonly string[];

  constructor(secrets: Iterable<string>) {
    const unique = [...new Set([...secrets].filter((secret) => secret.length > 0))];
    this.tooShort = unique.filter((secret) => secret.length < shortestScrubbed);
    const variants = unique.filter((secret) => secret.length >= shortestScrubbed).flatMap(variantsOf);
    this.patterns = [...new Set(variants)];
  }

  /** Whether there is anything to scrub. */
  get active(): boolean {
    return this.patterns.length > 0;
  }

  /**
   * The text with every occurrence of every secret replaced by one `[REDACTED]` per run of
   * secret characters. Occurrences are found in the original text and merged where they
   * overlap or touch: replacing one secret after another would break an overlapping second
   * secret in two and leave its tail, which no pattern matches any more, in the output.
   */
  scrub(text: string): string {
    const ranges: [number, number][] = [];
    for (const pattern of this.patterns) {
      let last: [number, number] | undefined;
      for (let at = text.indexOf(pattern); at !== -1; at = text.indexOf(pattern, at + 1)) {
        // Overlapping occurrences of one pattern extend one range: 4 MB of a repeated secret is one range, not millions.
        if (last && at <= last[1]) last[1] = at + pattern.length;
        else {
          last = [at, at + pattern.length];
          ranges.push(last);
        }
      }
    }
    if (ranges.length === 0) return text;
    ranges.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
    const parts: string[] = [];
    let kept = 0;
    let current = ranges[0]!;
    for (const range of ranges.slice(1)) {
      if (range[0] <= current[1]) current = [current[0], Math.max(current[1], range[1])];
      else {
        parts.push(text.slice(kept, current[0]), redacted);
        kept = current[1];
        current = range;
      }
    }
    parts.push(text.slice(kept, current[0]), redacted, text.slice(current[1]));
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
  return new Scrubber([...values.flatMap(secretFragments), ...(options.extra ?? [])]);
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
  if (!url.username && !url.password) return { baseUrl, secrets: [] };
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
  const token = Buffer.from(pair, 'utf8').toString('base64');
  // With no password, the user name is the credential (https://TOKEN@host).
  const secrets = password ? [password, url.password, pair, `${url.username}:${url.password}`] : [user, url.username];
  url.username = '';
  url.password = '';
  return { baseUrl: url.href, authorization: `Basic ${token}`, secrets: [...secrets, token, `Basic ${token}`] };
}
