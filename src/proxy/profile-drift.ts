/**
 * @module proxy/profile-drift
 * `proxy --profile FILE`: the drift watcher. Each exchange the upstream answered is held
 * to the profile's declared entries by the one holding `conformance --profile` uses
 * (profile-checks.ts `holdToProfile`); an answer that departs from an entry is drift. A finding
 * is kept once per entry: the first departure's details (what the profile says, what the server
 * answered, the client's request as a curl, credentials read from the environment and the rest
 * scrubbed), the last answer seen, and how many exchanges drifted from it. The entries are the
 * register's (a few dozen) and every string is capped, so the watcher is bounded however long
 * the proxy runs.
 */

import { toCurl } from '../conformance/http/curl.js';
import { holdToProfile, shownOnlyByQuestions } from '../conformance/profile/profile-checks.js';
import type { Scrubber } from '../conformance/secrets.js';
import { hopByHopHeaders } from '../http/headers.js';
import { type EntryName, entryNames } from '../profile/entries.js';
import type { ServerProfile } from '../profile/profile.js';
import type { ProfileWatcher, WatchedExchange } from './profile-watch.js';

/** One entry the upstream drifted from, as the report shows it. */
export interface DriftFinding {
  readonly entry: EntryName;
  /** How the first drifting answer departs (`code X, not Y`). */
  readonly problem: string;
  /** What the profile declares for that answer's operation and condition. */
  readonly expected: string;
  /** What the server answered the first time it drifted from the entry. */
  readonly seen: string;
  /** The first drifting request as a curl command (credentials as environment variables, the rest scrubbed). */
  readonly request: string;
  /** The exchange's number (the log's and the report's). */
  readonly exchange: number;
  /** Its operation, or `(outside the contract)`. */
  readonly operation: string;
  /** How many exchanges drifted from this entry. */
  readonly count: number;
  /** The last drifting answer, when more than one drifted. */
  readonly lastSeen?: string;
}

/** The caps of what one finding keeps (docs/reliability.md, the proxy's bounds). */
export const driftBounds = {
  /** An expected or seen line (the declared answer of an entry is a small value). */
  maxLineChars: 2_000,
  /** The curl of a request: a body up to curl.ts's 16 KiB is inlined, longer ones are named, not kept. */
  maxRequestChars: 24 * 1024,
} as const;

/** Headers a curl command sends by itself, or that describe the proxy's connection, not the request. */
const notReplayed = new Set([...hopByHopHeaders, 'host', 'content-length']);

function capped(text: string, max: number): string {
  // A copy, so a finding never keeps a whole answer alive through a slice of it.
  return text.length <= max ? text : `${Buffer.from(text.slice(0, max - 1)).toString('utf8')}…`;
}

export interface ProfileDriftOptions {
  readonly profile: ServerProfile;
  /** The proxy's one scrubber: it has learnt each request's credentials before the watcher sees it. */
  readonly scrubber: Scrubber;
  /** The header naming a caller (the profile's A-10.caller): its value is a credential. */
  readonly credentialHeader: string;
}

/** Holds the upstream's answers to a profile; each departure is drift. */
export class ProfileDriftWatcher implements ProfileWatcher {
  private readonly profile: ServerProfile;
  private readonly scrubber: Scrubber;
  private readonly credentialHeader: string;
  private readonly found = new Map<EntryName, DriftFinding>();
  /** Exchanges each watched entry was judged on (held or drifted): the reports' passed cases. */
  readonly judged = new Map<EntryName, number>();
  private drifting = 0;
  /** The declared entries traffic can show, in the register's order. */
  readonly watched: readonly EntryName[];

  constructor(options: ProfileDriftOptions) {
    this.profile = options.profile;
    this.scrubber = options.scrubber;
    this.credentialHeader = options.credentialHeader;
    this.watched = entryNames.filter((entry) => options.profile.declared.has(entry) && !shownOnlyByQuestions(entry));
  }

  see(watched: WatchedExchange): readonly string[] {
    const { shown, departures } = holdToProfile(watched.exchange, this.profile);
    for (const entry of shown) if (!shownOnlyByQuestions(entry)) this.judged.set(entry, (this.judged.get(entry) ?? 0) + 1);
    const drifted = departures.filter((departure) => !shownOnlyByQuestions(departure.entry));
    if (drifted.length === 0) return [];
    this.drifting += 1;
    for (const departure of drifted) {
      const kept = this.found.get(departure.entry);
      const seen = capped(this.scrubber.scrub(departure.seen), driftBounds.maxLineChars);
      this.found.set(
        departure.entry,
        kept
          ? { ...kept, count: kept.count + 1, lastSeen: seen }
          : {
              entry: departure.entry,
              problem: capped(this.scrubber.scrub(departure.problem), driftBounds.maxLineChars),
              expected: capped(departure.expected, driftBounds.maxLineChars),
              seen,
              request: capped(this.curlOf(watched.request), driftBounds.maxRequestChars),
              exchange: watched.exchange.id,
              operation: watched.exchange.operationId ?? '(outside the contract)',
              count: 1,
            },
      );
    }
    return drifted.map((departure) => departure.entry);
  }

  /** The findings, one per entry, in the register's order. */
  findings(): DriftFinding[] {
    return entryNames.flatMap((entry) => {
      const finding = this.found.get(entry);
      return finding ? [finding] : [];
    });
  }

  /** How many exchanges drifted from at least one entry. */
  get driftCount(): number {
    return this.drifting;
  }

  /** The client's request as a curl: credential headers read from the environment, anything else learnt scrubbed. */
  private curlOf(request: WatchedExchange['request']): string {
    const headers: Record<string, string> = Object.create(null);
    const secret = [this.credentialHeader];
    for (const [name, value] of Object.entries(request.headers)) {
      const lower = name.toLowerCase();
      if (value === undefined || notReplayed.has(lower)) continue;
      headers[lower] = Array.isArray(value) ? value.join(', ') : String(value);
      if (this.scrubber.isCredentialHeader(lower)) secret.push(lower);
    }
    const curl = toCurl(
      { method: request.method, url: request.url, headers, ...(request.body === '' ? {} : { body: request.body }) },
      { secretHeaders: secret },
    );
    return this.scrubber.scrub(curl);
  }
}
