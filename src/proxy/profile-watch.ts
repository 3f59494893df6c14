/**
 * @module proxy/profile-watch
 * What the proxy shows a profile's watchers: each exchange the upstream answered, with the
 * intent the runner would have sent its request with (profile-intent.ts), so that drift
 * (`proxy --profile`) and passive learning (`proxy --write-profile`) read live traffic through
 * the same one reading (observe.ts) as a conformance run.
 */
import type { Exchange } from '../conformance/exchange.js';

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
