/**
 * @module proxy/har-traffic
 * A HAR 1.2 file read back as traffic (`profile --from-har`, A-69): the proxy's `--record`
 * cassette or a browser's export. Each entry is replayed, in order, through the proxy's own
 * pipeline (request-rules.ts, traffic-intent.ts with one TrafficState, profile-intent.ts) and
 * shown to a watcher as the proxy shows it a live exchange; nothing is sent anywhere. An entry
 * outside the server's base URL, one the proxy answered itself, one without an answer and one
 * that is not a HAR entry are skipped and counted. Bounded: the file's size and its entry count
 * (the proxy's cassette holds at most 10,000 entries, 64 MiB).
 */
import type { Exchange } from '../conformance/exchange.js';
import { toReceived } from '../conformance/http/transport.js';
import type { Scrubber } from '../conformance/secrets.js';
import { anonymousCaller, callerFingerprint } from '../engine/caller.js';
import type { ContractDocument } from '../openapi/document.js';
import { ResponseValidator } from '../openapi/response-validator.js';
import { type ProfileWatcher, watchedExchange } from './profile-watch.js';
import { judgeRequest, matchOperation } from './request-rules.js';
import { trafficIntent } from './traffic-intent.js';
import { TrafficState } from './traffic-state.js';

/** The largest HAR read and the most entries replayed: the proxy's cassette bounds. */
export const harLimits = { maxBytes: 64 * 1024 * 1024, maxEntries: 10_000 } as const;

/** A file that is no HAR this reader takes: `message` is one line naming the problem. */
export class HarTrafficError extends Error {
  override readonly name = 'HarTrafficError';
}

/** One HAR entry as traffic: header names lower-case, bodies as bytes. */
interface TrafficEntry {
  readonly method: string;
  readonly url: URL;
  readonly headers: Record<string, string | string[]>;
  readonly body: Buffer;
  readonly response: { readonly status: number; readonly headers: Record<string, string>; readonly body: Buffer };
  readonly durationMs: number;
}

/** Why entries were skipped, each counted. */
export interface HarSkipped {
  /** At another origin, or outside the server's base path. */
  outside: number;
  /** Not a HAR entry this reader understands (no method, no absolute URL, headers not name/value pairs…). */
  malformed: number;
  /** No answer recorded (status 0: the request got none). */
  unanswered: number;
  /** Answered by the proxy itself (an injected fault, an --errors refusal): not the server's answer. */
  answeredByProxy: number;
}

/** The entries of a HAR document's text, or a HarTrafficError saying why it is none. */
export function harEntries(text: string): readonly unknown[] {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw new HarTrafficError(
      error instanceof RangeError ? 'it nests too deeply to read' : `it is not JSON (${String((error as Error).message).slice(0, 80)})`,
    );
  }
  const log = (document as { log?: unknown } | null)?.log;
  const entries = (log as { entries?: unknown } | null | undefined)?.entries;
  if (!log || typeof log !== 'object' || !Array.isArray(entries))
    throw new HarTrafficError('it is JSON but not a HAR: no log.entries list');
  if (entries.length > harLimits.maxEntries)
    throw new HarTrafficError(
      `it has ${entries.length} entries; at most ${harLimits.maxEntries} are read (the proxy's cassette keeps as many)`,
    );
  return entries;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** HAR headers (a list of {name, value}) as lower-case names; HTTP/2 pseudo-headers left out; undefined when not a list of pairs. */
function headersOf(value: unknown): Record<string, string[]> | undefined {
  if (!Array.isArray(value)) return undefined;
  const headers: Record<string, string[]> = Object.create(null);
  for (const pair of value) {
    if (!isObject(pair) || typeof pair.name !== 'string' || typeof pair.value !== 'string') return undefined;
    const name = pair.name.toLowerCase();
    if (name.startsWith(':') || name === '') continue;
    const list = headers[name];
    if (list) list.push(pair.value);
    else headers[name] = [pair.value];
  }
  return headers;
}

/** A HAR text, decoded when it says base64; undefined when it is neither. */
function bytesOf(holder: Record<string, unknown> | undefined): Buffer | undefined {
  if (!holder || holder.text === undefined) return Buffer.alloc(0);
  if (typeof holder.text !== 'string') return undefined;
  return holder.encoding === 'base64' ? Buffer.from(holder.text, 'base64') : Buffer.from(holder.text, 'utf8');
}

/** Whether the proxy answered the entry itself (its cassette says so in the comment or the body). */
function answeredByProxy(entry: Record<string, unknown>, body: Buffer): boolean {
  const comment = typeof entry.comment === 'string' ? entry.comment : '';
  if (/not sent upstream|answered by the proxy/.test(comment)) return true;
  return /^\{[^{}]*"message":"evidence-harness proxy[: ]/.test(body.subarray(0, 2048).toString('utf8'));
}

/** The entry as traffic, or why it is skipped. */
function trafficEntry(entry: unknown): TrafficEntry | keyof HarSkipped {
  if (!isObject(entry) || !isObject(entry.request) || !isObject(entry.response)) return 'malformed';
  const { request, response } = entry;
  if (typeof request.method !== 'string' || !/^[A-Za-z]{1,20}$/.test(request.method) || typeof request.url !== 'string') return 'malformed';
  if (!URL.canParse(request.url)) return 'malformed';
  const url = new URL(request.url);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'malformed';
  const requestHeaders = headersOf(request.headers);
  const responseHeaders = headersOf(response.headers);
  const requestBody = bytesOf(isObject(request.postData) ? request.postData : undefined);
  const responseBody = bytesOf(isObject(response.content) ? response.content : undefined);
  if (!requestHeaders || !responseHeaders || !requestBody || !responseBody || typeof response.status !== 'number') return 'malformed';
  if (response.status === 0) return 'unanswered';
  if (!Number.isInteger(response.status) || response.status < 100 || response.status > 599) return 'malformed';
  if (answeredByProxy(entry, responseBody)) return 'answeredByProxy';
  // The recorded text is the decoded body: its coding and length no longer describe it.
  const answerHeaders: Record<string, string> = {};
  for (const [name, values] of Object.entries(responseHeaders))
    if (name !== 'content-encoding' && name !== 'content-length' && name !== 'transfer-encoding') answerHeaders[name] = values.join(', ');
  const headers: Record<string, string | string[]> = {};
  for (const [name, values] of Object.entries(requestHeaders)) headers[name] = values.length === 1 ? values[0]! : values;
  return {
    method: request.method.toUpperCase(),
    url,
    headers,
    body: requestBody,
    response: { status: response.status, headers: answerHeaders, body: responseBody },
    durationMs: typeof entry.time === 'number' && entry.time >= 0 ? entry.time : 0,
  };
}

/** Where the server's traffic is: an origin and a base path. */
interface ServerBase {
  readonly origin: string;
  readonly path: string;
}

function baseOf(value: string): ServerBase {
  const url = new URL(value);
  return { origin: url.origin, path: url.pathname.replace(/\/+$/, '') };
}

/**
 * The server of the first entry whose path (or the end of it, after a base path) is one of the
 * contract's operations: a browser's export holds other sites' requests too.
 */
function firstServer(entries: readonly TrafficEntry[], contract: ContractDocument): ServerBase | undefined {
  for (const entry of entries) {
    const path = entry.url.pathname;
    for (let at = 0; at >= 0 && at < path.length; at = path.indexOf('/', at + 1))
      if (matchOperation(contract.operations, { method: entry.method, path: path.slice(at) }))
        return { origin: entry.url.origin, path: path.slice(0, at) };
  }
  return undefined;
}

/**
 * Replays the HAR's entries, in order, through the proxy's pipeline and shows each answered one
 * to `watcher`. `base` is the server's URL (`--base-url`); without it, the server of the first
 * entry that is a contract operation. The scrubber learns each entry's credentials.
 */
export async function replayHar(options: {
  entries: readonly unknown[];
  contract: ContractDocument;
  watcher: ProfileWatcher;
  scrubber: Scrubber;
  base?: string;
  /** The header naming a caller (A-10.caller): Authorization, as the proxy's default. */
  credentialHeader?: string;
}): Promise<{ read: number; server?: string; skipped: HarSkipped }> {
  const { contract, watcher, scrubber } = options;
  const skipped: HarSkipped = { outside: 0, malformed: 0, unanswered: 0, answeredByProxy: 0 };
  const traffic: TrafficEntry[] = [];
  for (const entry of options.entries) {
    const read = trafficEntry(entry);
    if (typeof read === 'string') skipped[read] += 1;
    else traffic.push(read);
  }
  const server = options.base === undefined ? firstServer(traffic, contract) : baseOf(options.base);
  if (!server) {
    skipped.outside += traffic.length;
    return { read: 0, skipped };
  }
  const validator = new ResponseValidator(contract, { allErrors: false });
  const state = new TrafficState();
  let read = 0;
  for (const entry of traffic) {
    const fullPath = entry.url.pathname;
    const inside =
      entry.url.origin === server.origin && (server.path === '' || fullPath === server.path || fullPath.startsWith(`${server.path}/`));
    if (!inside) {
      skipped.outside += 1;
      continue;
    }
    read += 1;
    scrubber.learnFromRequest({ url: entry.url.href, headers: entry.headers });
    scrubber.learnFromAnswer({ headers: entry.response.headers });
    const path = fullPath.slice(server.path.length) || '/';
    const method = entry.method;
    const judged = judgeRequest({
      request: { method, path, headers: entry.headers, body: entry.body, bodyCut: false },
      operations: contract.operations,
      validator,
    });
    const operation = judged.operation;
    const requestText = entry.body.toString('utf8');
    const authorization = entry.headers.authorization;
    const credential = Array.isArray(authorization) ? authorization.join(', ') : authorization;
    // As the proxy names a caller: by its Authorization (a cassette's are scrubbed, one caller for all).
    const caller = credential ? await callerFingerprint(credential) : anonymousCaller;
    const intent = trafficIntent({ judged, state, caller, headers: entry.headers, operationId: operation?.operationId, path, requestText });
    const response = toReceived({ status: entry.response.status, headers: entry.response.headers, body: entry.response.body });
    const exchange: Exchange = {
      id: read,
      ...(operation ? { operationId: operation.operationId } : {}),
      caller: 1,
      intent: intent.intent,
      request: { method, url: entry.url.href, headers: {}, body: requestText },
      response,
      notes: [],
      rateLimited: response.status === 429,
      durationMs: entry.durationMs,
    };
    watcher.see(
      watchedExchange({
        exchange,
        path,
        headers: entry.headers,
        body: requestText,
        bodyBytes: entry.body.length,
        judged,
        credentialHeader: options.credentialHeader ?? 'Authorization',
        isCredentialHeader: (name) => scrubber.isCredentialHeader(name),
        validator,
      }),
    );
    intent.remember(response);
  }
  return { read, server: `${server.origin}${server.path}`, skipped };
}
