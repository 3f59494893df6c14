/**
 * @module conformance/profile/observe-credentials
 * What an exchange shows of profile format 2's credential and header entries (docs/profiles.md,
 * "Credentials and headers"): the answers to the learning step's malformed and other-scheme
 * credentials (learning/credentials.ts), with their challenge; and the headers of each class of
 * answer the run met anyway: a create's 202 (Location as a template: the body's jobId becomes
 * `{jobId}`, the server's own origin `{origin}`), a replay's, a Job read's, an Error's, a 429's or 503's Retry-After. One reading for
 * `--write-profile` and `--profile`, like observe.ts, and how an observation departs from the
 * declared value.
 */

import type { EntryName } from '../../profile/entries.js';
import { type HeaderEntryName, headerSets, maxHeaderValueLength, originPlaceholder } from '../../profile/entries-credentials.js';
import { flowYaml } from '../../profile/write.js';
import type { Exchange } from '../exchange.js';
import type { Observation } from './observe.js';

/** The learning step's questions (the intent's `question`), each the entry it decides. */
export const credentialQuestions = {
  'malformed-credentials': 'A-10.malformed-credentials',
  'other-scheme': 'A-10.other-scheme',
} as const;

/** The entries this module reads: their departure is judged here. */
const entries = new Set<EntryName>([
  'A-10.without-credentials',
  'A-10.malformed-credentials',
  'A-10.other-scheme',
  'A-3.accepted-headers',
  'A-3.job-headers',
  'A-7.error-headers',
  'A-16.replay-headers',
  'A-11.retry-after',
  'A-8.retry-after',
]);

function codeOf(exchange: Exchange): string | undefined {
  const json = exchange.response?.json as { code?: unknown } | undefined;
  return json && typeof json === 'object' && typeof json.code === 'string' ? json.code.slice(0, 81) : undefined;
}

/**
 * A 401's challenge, when the answer carries one fit to declare; else nothing: a part left out
 * is the mock's own challenge, never a wrong claim (a longer or unprintable one is not judged).
 */
export function challengeOf(exchange: Exchange): { challenge?: string } {
  const value = exchange.response?.headers['www-authenticate'];
  if (exchange.response?.status !== 401 || value === undefined) return {};
  return value.length <= maxHeaderValueLength && /^[\x20-\x7E]+$/.test(value) ? { challenge: value.trim() } : {};
}

function pathOf(exchange: Exchange): string {
  try {
    return new URL(exchange.request.url).pathname.slice(0, 60);
  } catch {
    return exchange.request.url.slice(0, 60);
  }
}

/**
 * A Location as a template: the body's jobId made `{jobId}`, and an absolute URL on the origin the
 * request was sent to (the run's base URL's) made `{origin}/…`, so the mock serves its own origin
 * there and a server held to the file is judged on the origin it was reached at (A-3). A Location
 * on another origin (a CDN, another host) is kept as sent.
 */
export function locationTemplate(value: string, options: { requestUrl: string; jobId?: string | undefined }): string {
  let template = value;
  const authority = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/.exec(value);
  if (authority) {
    try {
      const own = new URL(options.requestUrl).origin;
      if (own !== 'null' && new URL(authority[0]).origin === own && value.charAt(authority[0].length) === '/')
        template = `${originPlaceholder}${value.slice(authority[0].length)}`;
    } catch {
      // Not a URL: kept as sent.
    }
  }
  const { jobId } = options;
  return typeof jobId === 'string' && jobId !== '' ? template.replaceAll(jobId, '{jobId}') : template;
}

/** The headers of `set` the answer carries, by the set's spelling; Location as a template. */
function headersOf(exchange: Exchange, entry: HeaderEntryName): Record<string, string> {
  const response = exchange.response!;
  const jobId = (response.json as { jobId?: unknown } | undefined)?.jobId;
  const found: Record<string, string> = {};
  for (const name of headerSets[entry]) {
    const value = response.headers[name.toLowerCase()];
    if (value === undefined) continue;
    found[name] =
      name === 'Location'
        ? locationTemplate(value, { requestUrl: exchange.request.url, jobId: typeof jobId === 'string' ? jobId : undefined })
        : value;
  }
  return found;
}

function headersSeen(exchange: Exchange, entry: HeaderEntryName, what: string): Observation {
  const value = headersOf(exchange, entry);
  const shown = Object.entries(value)
    .map(([name, text]) => `${name}: ${text.slice(0, 80)}`)
    .join(', ');
  return {
    entry,
    value,
    seen: `${exchange.request.method} ${pathOf(exchange)}, ${what} → ${exchange.response!.status}${shown ? ` with ${shown}` : ' with none of them'}`,
  };
}

/** Everything `exchange` shows of this module's entries (the exchange has a whole answer). */
export function observeCredentialsAndHeaders(exchange: Exchange): Observation[] {
  const response = exchange.response!;
  const { intent } = exchange;
  const observations: Observation[] = [];
  const code = codeOf(exchange);
  if (intent.kind === 'learning' && Object.hasOwn(credentialQuestions, intent.question)) {
    const entry = credentialQuestions[intent.question as keyof typeof credentialQuestions];
    const what = String(intent.detail?.sent ?? intent.question);
    const seen = `${exchange.request.method} ${pathOf(exchange)}, ${what} → ${response.status}${code ? ` ${code}` : ''}`;
    // Refused (any 4xx with a code but the job's own 404), else taken as no caller: the caller's job is then another's.
    if (response.status >= 400 && response.status !== 404 && response.status !== 429 && response.status < 500 && code)
      observations.push({ entry, value: { status: response.status, code, ...challengeOf(exchange) }, seen });
    else if (response.status < 300 || response.status === 404) observations.push({ entry, value: 'anonymous', seen });
  }
  if (intent.kind === 'create' && response.status === 202) observations.push(headersSeen(exchange, 'A-3.accepted-headers', 'a create'));
  if (intent.kind === 'replay' && response.status >= 200 && response.status < 300)
    observations.push(headersSeen(exchange, 'A-16.replay-headers', 'its replay'));
  if (exchange.operationId === 'getJob' && response.status === 200)
    observations.push(headersSeen(exchange, 'A-3.job-headers', 'a Job read'));
  if (response.status >= 400 && code !== undefined) observations.push(headersSeen(exchange, 'A-7.error-headers', 'an Error'));
  const delay = response.headers['retry-after'];
  const delayEntry = response.status === 429 ? 'A-11.retry-after' : response.status === 503 ? 'A-8.retry-after' : undefined;
  if (delayEntry && delay !== undefined && /^\d{1,5}$/.test(delay.trim()))
    observations.push({
      entry: delayEntry,
      value: { seconds: Number(delay.trim()) },
      seen: `${exchange.request.method} ${pathOf(exchange)} → ${response.status} with Retry-After: ${delay.trim()}`,
    });
  return observations;
}

/**
 * How an observation of this module's entries departs from the declared value, undefined when it
 * keeps to it, or 'not-mine' for another entry. A header entry is judged whole (a header the
 * server sends that the entry does not name departs too); a challenge only where one is declared.
 */
export function credentialsDeparture(observation: Observation, declared: unknown): string | undefined | 'not-mine' {
  const { entry, value } = observation;
  if (!entries.has(entry as EntryName)) return 'not-mine';
  if (value === 'anonymous' || declared === 'anonymous')
    return value === declared ? undefined : `answered ${flowYaml(value)} where ${flowYaml(declared)} is declared`;
  if (entry in headerSets) {
    const want = declared as Record<string, string>;
    const names = [...new Set([...Object.keys(want), ...Object.keys(value)])].sort();
    const differing = names.filter((name) => want[name] !== value[name]);
    if (differing.length === 0) return undefined;
    return differing
      .map(
        (name) =>
          `${name} ${value[name] === undefined ? 'absent' : flowYaml(value[name])}, not ${want[name] === undefined ? 'absent' : flowYaml(want[name])}`,
      )
      .join(', ');
  }
  const wanted = declared as Record<string, unknown>;
  const differing = Object.entries(value).filter(
    ([part, seen]) => !(part === 'challenge' && wanted.challenge === undefined) && JSON.stringify(wanted[part]) !== JSON.stringify(seen),
  );
  // A declared challenge the answer does not carry departs too.
  if (wanted.challenge !== undefined && value.challenge === undefined && value.status === 401) differing.push(['challenge', undefined]);
  if (differing.length === 0) return undefined;
  return differing
    .map(([part, seen]) => `${part} ${seen === undefined ? 'absent' : flowYaml(seen)}, not ${flowYaml(wanted[part])}`)
    .join(', ');
}
