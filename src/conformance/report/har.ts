/**
 * @module conformance/report/har
 * A cassette of exchanges in HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/), the
 * format browsers' developer tools, proxies and HTTP clients open. Credentials never reach it:
 * the values of credential headers are replaced, and each exchange's credential values are
 * also taken out of its bodies and other headers (a server that echoes them).
 */
import { STATUS_CODES } from 'node:http';

export interface CassetteEntry {
  /** When the request was sent (ms since the epoch). */
  readonly startedAt: number;
  readonly durationMs: number;
  readonly request: {
    readonly method: string;
    readonly url: string;
    readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>;
    readonly body?: string;
  };
  readonly response?: {
    readonly status: number;
    readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>;
    readonly body: string;
  };
  /** Why there is no response, or what else a reader should know (violations, an injected fault). */
  readonly comment?: string;
}

/** Headers whose values are credentials: shown as "[scrubbed]". */
const credentialHeaders = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-mock-token', 'x-api-key']);
const scrubbed = '[scrubbed]';

function pairs(headers: CassetteEntry['request']['headers']): { name: string; value: string }[] {
  const list: { name: string; value: string }[] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    for (const one of typeof value === 'string' ? [value] : value) list.push({ name, value: one });
  }
  return list;
}

/**
 * The credential values a request's headers carry, longest first: each credential header's
 * value, its last word ("Bearer abc" → "abc"), and each cookie's value, so that a server echoing
 * any of them on its own is caught too. Values under 8 characters are left out: they would scrub
 * ordinary words (the runner's scrubber has the same floor).
 */
export function credentialValues(headers: CassetteEntry['request']['headers']): string[] {
  const values: string[] = [];
  // Names first: the proxy asks this of every exchange, and most carry no credential header at all.
  for (const name of Object.keys(headers)) {
    const lower = name.toLowerCase();
    if (!credentialHeaders.has(lower)) continue;
    const header = headers[name];
    if (header === undefined) continue;
    for (const value of typeof header === 'string' ? [header] : header) {
      values.push(value);
      const token = value.split(/\s+/).at(-1);
      if (token && token !== value) values.push(token);
      if (lower === 'cookie' || lower === 'set-cookie')
        for (const part of value.split(';')) values.push(part.slice(part.indexOf('=') + 1).trim());
    }
  }
  if (values.length === 0) return values;
  return [...new Set(values.filter((value) => value.length >= 8))].sort((a, b) => b.length - a.length);
}

/** `text` with every credential value of `headers` replaced by "[scrubbed]". */
export function scrubCredentials(text: string, headers: CassetteEntry['request']['headers']): string {
  return scrubText(text, credentialValues(headers));
}

function scrubText(text: string, secrets: readonly string[]): string {
  let result = text;
  for (const secret of secrets) result = result.split(secret).join(scrubbed);
  return result;
}

function harHeaders(headers: CassetteEntry['request']['headers'], secrets: readonly string[]) {
  return pairs(headers).map(({ name, value }) => ({
    name,
    value: credentialHeaders.has(name.toLowerCase()) ? scrubbed : scrubText(value, secrets),
  }));
}

function mimeTypeOf(headers: CassetteEntry['request']['headers']): string {
  const found = pairs(headers).find(({ name }) => name.toLowerCase() === 'content-type');
  return found?.value ?? '';
}

/** The cassette as a HAR 1.2 document. */
export function buildHar(options: { readonly creator: { name: string; version: string }; readonly entries: readonly CassetteEntry[] }) {
  return {
    log: {
      version: '1.2',
      creator: options.creator,
      entries: options.entries.map((entry) => {
        const secrets = credentialValues(entry.request.headers);
        // A request target such as `*` (OPTIONS *) makes no URL: the entry keeps it as it was.
        const url = URL.canParse(entry.request.url) ? new URL(entry.request.url) : undefined;
        const requestBody = entry.request.body === undefined ? undefined : scrubText(entry.request.body, secrets);
        const responseBody = entry.response ? scrubText(entry.response.body, secrets) : '';
        return {
          startedDateTime: new Date(entry.startedAt).toISOString(),
          time: Math.max(0, Math.round(entry.durationMs * 1000) / 1000),
          request: {
            method: entry.request.method,
            url: scrubText(url?.href ?? entry.request.url, secrets),
            httpVersion: 'HTTP/1.1',
            cookies: [],
            headers: harHeaders(entry.request.headers, secrets),
            queryString: [...(url?.searchParams ?? [])].map(([name, value]) => ({ name, value: scrubText(value, secrets) })),
            headersSize: -1,
            bodySize: requestBody === undefined ? 0 : Buffer.byteLength(requestBody),
            ...(requestBody === undefined ? {} : { postData: { mimeType: mimeTypeOf(entry.request.headers), text: requestBody } }),
          },
          response: entry.response
            ? {
                status: entry.response.status,
                statusText: STATUS_CODES[entry.response.status] ?? '',
                httpVersion: 'HTTP/1.1',
                cookies: [],
                headers: harHeaders(entry.response.headers, secrets),
                content: { size: Buffer.byteLength(responseBody), mimeType: mimeTypeOf(entry.response.headers), text: responseBody },
                redirectURL: String(pairs(entry.response.headers).find(({ name }) => name.toLowerCase() === 'location')?.value ?? ''),
                headersSize: -1,
                bodySize: Buffer.byteLength(responseBody),
              }
            : // HAR has no "no response": status 0 is what browsers record for a request that got none.
              {
                status: 0,
                statusText: '',
                httpVersion: 'HTTP/1.1',
                cookies: [],
                headers: [],
                content: { size: 0, mimeType: '' },
                redirectURL: '',
                headersSize: -1,
                bodySize: -1,
              },
          cache: {},
          timings: { send: 0, wait: Math.max(0, entry.durationMs), receive: 0 },
          ...(entry.comment ? { comment: scrubText(entry.comment, secrets) } : {}),
        };
      }),
    },
  };
}
