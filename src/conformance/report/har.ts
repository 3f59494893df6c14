/**
 * @module conformance/report/har
 * A cassette of exchanges in HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/), the
 * format browsers' developer tools, proxies and HTTP clients open. Credentials never reach it:
 * everything is written through the one scrubber (../secrets.ts): credential headers' and
 * query parameters' values replaced, userinfo taken out of URLs, and every secret the session
 * carries taken out of bodies, other headers and comments (a server that echoes them).
 */
import { STATUS_CODES } from 'node:http';
import { Scrubber } from '../secrets.js';

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

/** What a cassette writes for a credential (docs/conformance.md, docs/proxy.md). */
export const harPlaceholder = '[scrubbed]';

const harScrubber = new Scrubber({ placeholder: harPlaceholder });

function pairs(headers: CassetteEntry['request']['headers']): { name: string; value: string }[] {
  const list: { name: string; value: string }[] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    for (const one of typeof value === 'string' ? [value] : value) list.push({ name, value: one });
  }
  return list;
}

/**
 * `text` with every credential of a request's headers taken out, as `[scrubbed]`.
 * @deprecated Use one Scrubber (../secrets.ts) for a whole session: `learnFromRequest` and
 * `learnFromAnswer` for each exchange, then `scrub`, `scrubUrl`, `scrubHeaders`.
 */
export function scrubCredentials(text: string, headers: CassetteEntry['request']['headers']): string {
  return harScrubber.forExchange({ requestHeaders: headers }).scrub(text);
}

function mimeTypeOf(headers: CassetteEntry['request']['headers']): string {
  const found = pairs(headers).find(({ name }) => name.toLowerCase() === 'content-type');
  return found?.value ?? '';
}

/**
 * The cassette as a HAR 1.2 document, every credential scrubbed: by `scrubber` when given (all it
 * has learnt, a proxy session's), plus every secret the entries carry (a Set-Cookie value the
 * upstream echoes in a later entry), plus each entry's own even when more entries carry secrets
 * than a scrubber keeps. Credentials are written `[scrubbed]`.
 */
export function buildHar(options: {
  readonly creator: { name: string; version: string };
  readonly entries: readonly CassetteEntry[];
  readonly scrubber?: Scrubber;
}) {
  const session = (options.scrubber ?? harScrubber).forExchange({ placeholder: harPlaceholder });
  for (const entry of options.entries) {
    session.learnFromRequest({ url: entry.request.url, headers: entry.request.headers });
    if (entry.response) session.learnFromAnswer({ headers: entry.response.headers });
  }
  return {
    log: {
      version: '1.2',
      creator: options.creator,
      entries: options.entries.map((entry) => {
        const scrubber = session.forExchange({
          url: entry.request.url,
          requestHeaders: entry.request.headers,
          ...(entry.response ? { answerHeaders: entry.response.headers } : {}),
        });
        const scrubbedUrl = scrubber.scrubUrl(entry.request.url);
        // A request target such as `*` (OPTIONS *) makes no URL: the entry keeps it as it was.
        const url = URL.canParse(scrubbedUrl) ? new URL(scrubbedUrl) : undefined;
        const requestBody = entry.request.body === undefined ? undefined : scrubber.scrub(entry.request.body);
        const responseBody = entry.response ? scrubber.scrub(entry.response.body) : '';
        const responseHeaders = entry.response ? scrubber.scrubHeaders(entry.response.headers) : {};
        return {
          startedDateTime: new Date(entry.startedAt).toISOString(),
          time: Math.max(0, Math.round(entry.durationMs * 1000) / 1000),
          request: {
            method: entry.request.method,
            url: url?.href ?? scrubbedUrl,
            httpVersion: 'HTTP/1.1',
            cookies: [],
            headers: pairs(scrubber.scrubHeaders(entry.request.headers)),
            queryString: [...(url?.searchParams ?? [])].map(([name, value]) => ({ name, value: scrubber.scrub(value) })),
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
                headers: pairs(responseHeaders),
                content: { size: Buffer.byteLength(responseBody), mimeType: mimeTypeOf(entry.response.headers), text: responseBody },
                redirectURL: pairs(responseHeaders).find(({ name }) => name.toLowerCase() === 'location')?.value ?? '',
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
          ...(entry.comment ? { comment: scrubber.scrub(entry.comment) } : {}),
        };
      }),
    },
  };
}
