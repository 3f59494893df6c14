/**
 * @module proxy/profile-watch
 * What the proxy shows a profile's watchers: each exchange the upstream answered, with the
 * intent the runner would have sent its request with (profile-intent.ts), so that drift
 * (`proxy --profile`) and passive learning (`proxy --write-profile`) read live traffic through
 * the same one reading (observe.ts) as a conformance run.
 */
import type { Exchange } from '../conformance/exchange.js';
import type { ResponseValidator } from '../openapi/response-validator.js';
import { profileIntent } from './profile-intent.js';
import type { judgeRequest } from './request-rules.js';

export interface WatchedExchange {
  /** The exchange as the profile's reading takes it: its intent the request's own situation. */
  readonly exchange: Exchange;
  /** The request as the client sent it, for a finding's curl (scrub it before showing it). */
  readonly request: {
    readonly method: string;
    /** The upstream's URL of the request. */
    readonly url: string;
    readonly headers: Readonly<Record<string, string | string[] | undefined>>;
    readonly body: string;
  };
}

export interface ProfileWatcher {
  /** Sees one exchange; returns the entries it departs from (drift), none for a learner. */
  see(watched: WatchedExchange): readonly string[];
}

/**
 * The exchange as a watcher sees it, built the one way for the proxy's live exchanges and for a
 * cassette read back: `exchange` with its traffic intent replaced by the request's own situation.
 */
export function watchedExchange(options: {
  /** The exchange as the proxy's checks judged it (its intent from the traffic). */
  readonly exchange: Exchange;
  readonly path: string;
  readonly headers: WatchedExchange['request']['headers'];
  readonly body: string;
  /** The whole body's size in bytes. */
  readonly bodyBytes: number;
  readonly judged: ReturnType<typeof judgeRequest>;
  readonly credentialHeader: string;
  readonly isCredentialHeader: (name: string) => boolean;
  /** The caller's scheme, when a profile declares one (A-10.caller). */
  readonly callerScheme?: string;
  /** Judges a body another reading of it gives (a duplicate member's first value). */
  readonly validator: ResponseValidator;
}): WatchedExchange {
  const { exchange, judged } = options;
  const method = exchange.request.method;
  const schema = judged.operation?.requestBody?.content['application/json'];
  const intent = profileIntent({
    method,
    path: options.path,
    headers: options.headers,
    bodyBytes: options.bodyBytes,
    ...(judged.operation ? { operation: judged.operation } : {}),
    violations: judged.violations,
    validIntent: exchange.intent,
    credentialHeader: options.credentialHeader,
    isCredentialHeader: options.isCredentialHeader,
    status: exchange.response?.status ?? 0,
    body: options.body,
    ...(options.callerScheme ? { callerScheme: options.callerScheme } : {}),
    ...(schema ? { bodyValid: (value: unknown) => options.validator.validateSchema(schema, value).length === 0 } : {}),
  });
  return {
    exchange: { ...exchange, intent },
    request: { method, url: exchange.request.url, headers: options.headers, body: options.body },
  };
}
