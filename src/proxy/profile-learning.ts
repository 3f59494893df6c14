/**
 * @module proxy/profile-learning
 * Passive learning: a profile learnt from a client's own traffic, by the proxy
 * (`proxy --write-profile`) or from a cassette read back (`profile --from-har`). Each answered
 * exchange is fed to the same learner as `conformance --write-profile` (learn.ts), its intent the
 * request's own situation (profile-intent.ts, A-67). Nothing is ever sent: the entries only the
 * learner's own questions decide are listed as such, never guessed. The caller's header
 * (A-10.caller) is the credential header the traffic's requests carry: its name and the scheme
 * word, never a value. Bounded: the learner keeps at most 64 values per entry part, and this
 * module a few counters.
 */
import type { Exchange } from '../conformance/exchange.js';
import { type LearntProfile, ProfileLearner } from '../conformance/profile/learn.js';
import type { EntryName } from '../profile/entries.js';
import { notCallerHeaders } from './profile-intent.js';
import type { ProfileWatcher, WatchedExchange } from './profile-watch.js';

/**
 * The entries only the learner's own questions decide, each with the question: traffic a client
 * sends on its own does not ask them, and the proxy sends no request of its own.
 */
export const askedOnlyByTheLearner: Readonly<Partial<Record<EntryName, string>>> = {
  'A-3.progression': 'reads of a new job at measured intervals',
  'A-5.replay': 'an equal body re-serialised under a used key, which traffic read by digest does not tell from a replay',
  'A-10.other-scheme': 'a credential of another scheme than the callers’ (known only from a profile: `proxy --profile`)',
  'A-13.body-limits': 'bodies of bisected sizes',
};

/** The most credential header names and schemes counted: far more than any traffic uses. */
const maxCallerHeaders = 16;
const maxSchemes = 8;

/** A header value's first word, as schemeOf (cli/write-profile.ts) reads it; injected to keep the registry's spelling in one place. */
type SchemeOf = (value: string) => string;

export interface TrafficProfile {
  readonly learnt: LearntProfile;
  /** Entries only the learner's own questions decide, not learnt from traffic (askedOnlyByTheLearner). */
  readonly askedOnly: readonly EntryName[];
  /** The exchanges read. */
  readonly exchanges: number;
  /** The caller's header and scheme written as A-10.caller, when the traffic carried one. */
  readonly caller?: { readonly header: string; readonly scheme: string };
}

function firstValue(value: string | readonly string[] | undefined): string | undefined {
  return typeof value === 'string' ? value : value?.[0];
}

/** `x-api-key` → `X-Api-Key`: node gives names lower-case, a profile shows them as people write them. */
function headerSpelling(name: string): string {
  return name
    .split('-')
    .map((part) => (part === '' ? part : `${part[0]!.toUpperCase()}${part.slice(1)}`))
    .join('-');
}

export class ProfileLearning implements ProfileWatcher {
  private readonly learner = new ProfileLearner();
  private exchanges = 0;
  /** Per credential header (lower-case) the requests carried: how often, and the schemes its values start with. */
  private readonly callers = new Map<string, { count: number; schemes: Set<string> }>();

  constructor(
    private readonly options: {
      /** The scrubber's test of a credential header (the defaults and --credential-header). */
      readonly isCredentialHeader: (name: string) => boolean;
      readonly schemeOf: SchemeOf;
    },
  ) {}

  /** Learns from one answered exchange; no drift: a learner returns none. */
  see(watched: WatchedExchange): readonly string[] {
    this.exchanges += 1;
    this.noteCallers(watched.request.headers);
    this.learner.record(this.asLearnt(watched));
    return [];
  }

  /** Counts the caller headers a request carries. */
  private noteCallers(headers: WatchedExchange['request']['headers']): void {
    for (const [name, raw] of Object.entries(headers)) {
      const lower = name.toLowerCase();
      if (notCallerHeaders.has(lower) || !this.options.isCredentialHeader(lower)) continue;
      const value = firstValue(raw);
      if (value === undefined || value.trim() === '') continue;
      let seen = this.callers.get(lower);
      if (!seen) {
        if (this.callers.size >= maxCallerHeaders) continue;
        seen = { count: 0, schemes: new Set() };
        this.callers.set(lower, seen);
      }
      seen.count += 1;
      if (seen.schemes.size < maxSchemes) seen.schemes.add(this.options.schemeOf(value));
    }
  }

  /**
   * The exchange as the learner reads it: an answer without credentials names the header the
   * traffic's callers use (the proxy's own reading names Authorization, its default). Every other
   * reading is the request's own situation (profile-intent.ts, A-67), as drift reads it.
   */
  private asLearnt(watched: WatchedExchange): Exchange {
    const { exchange } = watched;
    const intent = exchange.intent;
    const header = this.caller()?.header;
    if (intent.kind !== 'without-credentials' || header === undefined) return exchange;
    return { ...exchange, intent: { ...intent, removed: [header], description: `a request without ${header}` } };
  }

  /** The credential header most requests carried, with the one scheme all its values start with (else `any`). */
  caller(): { header: string; scheme: string } | undefined {
    let best: [string, { count: number; schemes: Set<string> }] | undefined;
    for (const entry of this.callers) if (!best || entry[1].count > best[1].count) best = entry;
    if (!best) return undefined;
    const schemes = [...best[1].schemes];
    return {
      header: best[0] === 'authorization' ? 'Authorization' : headerSpelling(best[0]),
      scheme: schemes.length === 1 ? schemes[0]! : 'any',
    };
  }

  /** What the traffic decided, `scrub` the proxy's scrubber (it learnt the traffic's credentials). */
  result(scrub: (text: string) => string): TrafficProfile {
    const caller = this.caller();
    const learnt = this.learner.result({ ...(caller ? { caller } : {}), scrub });
    const asked = (entry: EntryName) => askedOnlyByTheLearner[entry] !== undefined && learnt.entries[entry] === undefined;
    const askedOnly = [
      ...learnt.notObserved.filter(asked),
      ...learnt.notLearnt.filter((item) => asked(item.entry)).map((item) => item.entry),
    ];
    const comments =
      caller && learnt.entries['A-10.caller'] !== undefined
        ? {
            ...learnt.comments,
            'A-10.caller': [
              `the traffic's requests named their caller by ${caller.header} (${this.callers.get(caller.header.toLowerCase())?.count ?? 0} requests; values not shown)`,
            ],
          }
        : learnt.comments;
    return {
      learnt: {
        ...learnt,
        comments,
        notObserved: learnt.notObserved.filter((entry) => !asked(entry)),
        // The learner's reasons for these speak of a run's questions: here no question was asked at all.
        notLearnt: learnt.notLearnt.filter((item) => !asked(item.entry)),
      },
      askedOnly,
      exchanges: this.exchanges,
      ...(caller && learnt.entries['A-10.caller'] !== undefined ? { caller } : {}),
    };
  }
}
