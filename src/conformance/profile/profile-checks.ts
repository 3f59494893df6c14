/**
 * @module conformance/profile/profile-checks
 * `--profile FILE` (A-50): the server is held to its own word. Each declared entry is a required
 * check named after it (`profile:A-21.media-type`), judging what every exchange shows of it
 * (observe.ts); its failure names the entry, what it declares and the answer seen. The advisory
 * checks of a point the profile declares give way to it (a declared decision is never an
 * advisory failure), and error_code_documented accepts the profile's codes.
 */
import type { EntryName } from '../../profile/entries.js';
import { type AnswerPart, answerFor, keeps400, partsOf } from '../../profile/entry-parts.js';
import type { ServerProfile } from '../../profile/profile.js';
import { flowYaml } from '../../profile/write.js';
import { type Check, type ProbeName, received, withResponse } from '../checks/check.js';
import { errorCodeDocumented } from '../checks/generic-checks.js';
import type { Exchange } from '../exchange.js';
import { fail, pass, skip, type Verdict } from '../failures.js';
import { methodsDeparture } from './hold-methods.js';
import { timingDeparture, withDeclaredBodyLimits } from './hold-timing.js';
import { learntByMethods } from './learn-methods.js';
import { type Observation, observe } from './observe.js';
import { credentialsDeparture } from './observe-credentials.js';

/** The probes whose requests show each entry. */
const probesOf: Readonly<Record<EntryName, readonly ProbeName[]>> = {
  'A-2.over-maximum': ['negative'],
  'A-3.timeline': ['lifecycle'],
  'A-4.evaluation': ['lifecycle'],
  'A-5.replay': ['reserialized-replay'],
  'A-7.invalid-request': ['negative'],
  'A-8.server-failure': ['positive'],
  'A-8.unavailable': ['positive'],
  'A-9.health': [],
  'A-10.caller': ['ignored-auth'],
  'A-10.without-credentials': ['ignored-auth'],
  'A-10.unknown-job': ['unknown-job'],
  'A-10.other-callers-job': ['isolation'],
  'A-11.rate-limited': ['positive'],
  'A-13.body-too-large': ['oversized-body'],
  'A-16.missing-key': ['missing-header', 'negative'],
  'A-16.conflict': ['conflict'],
  'A-20.undeclared-method': ['undeclared-method'],
  'A-20.unknown-route': ['undeclared-path', 'negative'],
  'A-21.malformed-json': ['malformed-json'],
  'A-21.not-an-object': ['negative'],
  'A-21.media-type': ['media-type'],
  'A-23.invalid-job-id': ['negative'],
  'A-10.malformed-credentials': ['learning'],
  'A-10.other-scheme': ['learning'],
  'A-3.accepted-headers': ['lifecycle'],
  'A-3.job-headers': ['lifecycle'],
  'A-7.error-headers': ['negative', 'malformed-json', 'media-type', 'unknown-job'],
  'A-16.replay-headers': ['replay'],
  'A-11.retry-after': ['positive'],
  'A-8.retry-after': ['positive'],
  'A-20.options': ['learning'],
  'A-20.head': ['learning'],
  'A-20.allow': ['undeclared-method', 'learning'],
  'A-21.duplicate-members': ['learning'],
  'A-21.charset': ['learning'],
  'A-16.non-ascii-key': ['learning'],
  'A-7.precedence': ['learning'],
  'A-3.progression': ['learning'],
  'A-4.limitations': ['lifecycle', 'learning'],
  'A-13.body-limits': ['learning'],
};

/** The advisory checks each declared entry replaces: the point is the server's decision now. */
const givesWay: Readonly<Partial<Record<EntryName, readonly string[]>>> = {
  'A-3.timeline': ['job_status_moves_forward', 'final_state_stays_final'],
  'A-4.evaluation': ['evaluation_when_complete', 'no_evaluation_before_complete'],
  'A-5.replay': ['reserialized_replay'],
  'A-10.without-credentials': ['ignored_auth'],
  'A-13.body-too-large': ['oversized_body_rejected'],
  'A-20.undeclared-method': ['undeclared_method_rejected'],
  'A-20.unknown-route': ['undeclared_path_not_found'],
  'A-21.media-type': ['unsupported_media_type_rejected'],
  'A-23.invalid-job-id': ['invalid_job_id_not_found'],
  // Its body is over the limit and not the documented object: which is answered is the order's.
  'A-7.precedence': ['oversized_body_rejected'],
};

/** The shape of a JSON object: its keys and each value's JSON type. */
function shape(value: unknown): string {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return Array.isArray(value) ? 'array' : typeof value;
  return Object.keys(value)
    .sort()
    .map(
      (key) =>
        `${key}:${(value as Record<string, unknown>)[key] === null ? 'null' : Array.isArray((value as Record<string, unknown>)[key]) ? 'array' : typeof (value as Record<string, unknown>)[key]}`,
    )
    .join(',');
}

/** How an observation departs from the declared value, or undefined when it keeps to it. */
function departure(observation: Observation, declared: unknown): string | undefined {
  const credentials = credentialsDeparture(observation, declared);
  if (credentials !== 'not-mine') return credentials;
  const { entry, value } = observation;
  if (entry === 'A-9.health') {
    const seen = (value as { body: unknown }).body;
    const want = (declared as { body: unknown }).body;
    return shape(seen) === shape(want) ? undefined : `a body shaped {${shape(seen)}}, not {${shape(want)}}`;
  }
  if (entry === 'A-3.timeline') {
    const { first, through } = declared as { first: string; through: readonly string[] };
    const seen = value as { first?: string; state?: string };
    if (seen.first !== undefined && seen.first !== first) return `created as ${seen.first}, not ${first}`;
    if (seen.state !== undefined && !through.includes(seen.state))
      return `in state ${seen.state}, which is not among ${through.join(', ')}`;
    return undefined;
  }
  if (value === 'anonymous' || declared === 'anonymous')
    return value === declared ? undefined : `answered ${flowYaml(value)} where ${flowYaml(declared)} is declared`;
  // Each part seen must be the declared one (a part not seen, such as a status where the operation has no 413, is not judged).
  const differing = Object.entries(value).filter(
    ([part, seen]) => JSON.stringify((declared as Record<string, unknown>)[part]) !== JSON.stringify(seen),
  );
  if (differing.length === 0) return undefined;
  return differing
    .map(([part, seen]) => `${part} ${flowYaml(seen)}, not ${flowYaml((declared as Record<string, unknown>)[part])}`)
    .join(', ');
}

/**
 * What the entry declares for this observation's operation and condition (format 2's parts,
 * entry-parts.ts); on an operation without a 413, a limit entry's answer is 400.
 */
function declaredAnswer(entry: EntryName, declared: unknown, observation: Observation): unknown {
  if (!declared || typeof declared !== 'object' || !('code' in declared)) return declared;
  return answerFor(entry, declared as AnswerPart, { operation: observation.operation, condition: observation.condition });
}

/** The declared answer as a failure prints it: the part that applies, named, and why a limit is 400 where it is. */
function declaredFor(entry: EntryName, declared: unknown, observation: Observation): string {
  if (!declared || typeof declared !== 'object' || !('code' in declared)) return `${entry} ${flowYaml(declared)}`;
  const { operation, condition } = observation;
  const { operations, conditions } = declared as { operations?: Record<string, unknown>; conditions?: Record<string, unknown> };
  const where = [
    ...(operation && (operations || keeps400(entry, operation)) ? [`on ${operation}`] : []),
    // The condition is named where the entry declares answers per condition: else it changes nothing.
    ...(condition && conditions ? [`condition ${condition}`] : []),
  ].join(', ');
  const part =
    condition && conditions?.[condition]
      ? ` (its part conditions.${condition})`
      : operation && operations?.[operation]
        ? ` (its part operations.${operation})`
        : keeps400(entry, operation)
          ? ` (${operation} has no 413: 400 with the entry's code)`
          : '';
  return `${entry}${where ? ` ${where}:` : ''} ${flowYaml(declaredAnswer(entry, declared, observation))}${part}`;
}

/** One answer that departs from a declared entry: what a `--profile` failure and a drift finding say. */
export interface ProfileDeparture {
  readonly entry: EntryName;
  /** How the answer departs (`code X, not Y`). */
  readonly problem: string;
  /** What the profile declares for the answer's operation and condition (the part that applies, named). */
  readonly expected: string;
  /** What the server answered, as the observation says it (`POST /v0/evaluations, text/plain → 400 X`). */
  readonly seen: string;
}

/** What an exchange shows of a profile's declared entries: the entries it showed, and each departure. */
export interface ProfileHolding {
  readonly shown: ReadonlySet<EntryName>;
  /** At most one per entry: the first of its observations that departs. */
  readonly departures: readonly ProfileDeparture[];
}

/**
 * The runner's own questions, which a client's request read from traffic never stands for
 * (src/proxy/profile-intent.ts, A-67): the learning phase, a re-serialised replay, and a jobId
 * known to have no job (the proxy cannot know another client did not create it).
 */
const ownQuestions: ReadonlySet<ProbeName> = new Set(['learning', 'reserialized-replay', 'unknown-job']);

const shownByTraffic: ReadonlySet<EntryName> = new Set([
  'A-9.health',
  'A-7.precedence',
  'A-20.options',
  'A-20.head',
  'A-21.duplicate-members',
  'A-21.charset',
  'A-16.non-ascii-key',
  'A-10.malformed-credentials',
  'A-10.other-scheme',
]);

/**
 * Whether only the runner's own questions show `entry` (A-68): a client's traffic through the
 * proxy never does. A-10.caller is the run's --header.
 */
export function shownOnlyByQuestions(entry: EntryName): boolean {
  // Traffic shows these as the runner does (A-67): a client's own health read, a request with
  // two problems (a learner's pair), a plain OPTIONS and a HEAD, the strictness oddities and the
  // credential outcomes.
  if (shownByTraffic.has(entry)) return false;
  return entry === 'A-10.caller' || probesOf[entry].every((probe) => ownQuestions.has(probe));
}

/**
 * The one holding of a profile (A-53), shared by `--profile`'s checks and the proxy's drift
 * watcher (A-68): each declared entry `exchange` shows (observe.ts; a learning step's
 * conclusion is a measurement, judged by its answers one by one instead), and the first answer
 * that departs from it. `only` narrows it to one entry (a check judges its own). A-10.caller is
 * not an answer: its check judges the run's --header.
 */
export function holdToProfile(exchange: Exchange, profile: ServerProfile, only?: EntryName): ProfileHolding {
  const shown = new Set<EntryName>();
  const departures: ProfileDeparture[] = [];
  for (const observation of observe(exchange)) {
    const entry = observation.entry as EntryName;
    if (observation.use === 'learn' || (only !== undefined && entry !== only) || !profile.declared.has(entry)) continue;
    shown.add(entry);
    if (departures.some((departure) => departure.entry === entry)) continue;
    const declared = profile.entries[entry];
    const timing = timingDeparture(observation, profile);
    const problem = timing.handled
      ? timing.problem
      : learntByMethods.has(entry)
        ? methodsDeparture(observation, profile)
        : departure(observation, declaredAnswer(entry, declared, observation));
    if (problem) departures.push({ entry, problem, expected: declaredFor(entry, declared, observation), seen: observation.seen });
  }
  return { shown, departures };
}

/** The departures of `exchange` from the entries `profile` declares (drift, for the proxy). */
export function profileDepartures(exchange: Exchange, profile: ServerProfile): readonly ProfileDeparture[] {
  return holdToProfile(exchange, profile).departures;
}

function entryCheck(entry: EntryName, profile: ServerProfile): Check {
  const declared = profile.entries[entry];
  return {
    name: `profile:${entry}`,
    description: `the server answers as its profile declares: ${entry} ${flowYaml(declared)}`,
    severity: 'required',
    assumption: entry.split('.')[0]!,
    // A declared 429 or 500 the run never provoked has nothing to judge: said, not incomplete.
    optionalEvidence: true,
    probes: probesOf[entry],
    judge: withResponse((exchange): Verdict => {
      if (entry === 'A-10.caller') {
        if (exchange.intent.kind !== 'without-credentials') return skip;
        const header = (declared as { header: string }).header.toLowerCase();
        return exchange.intent.removed.some((name) => name.toLowerCase() === header)
          ? pass
          : fail({
              title: `${entry}: the run's credentials are not in the declared header ${(declared as { header: string }).header}`,
              expected: `--header naming ${(declared as { header: string }).header}`,
              received: `credentials in ${exchange.intent.removed.join(', ') || 'no header'}`,
            });
      }
      const { shown, departures } = holdToProfile(exchange, profile, entry);
      if (!shown.has(entry)) return skip;
      const first = departures[0];
      if (!first) return pass;
      return fail({
        title: `${entry}: ${first.problem}`,
        expected: `${first.expected} (the profile ${profile.source})`,
        received: `${first.seen}; ${received(exchange)}`,
      });
    }),
  };
}

/** Every code the profile declares anywhere, its parts' included: the server's own vocabulary. */
export function profileCodes(profile: ServerProfile): Set<string> {
  const codes = new Set<string>();
  for (const entry of profile.declared) {
    const value = profile.entries[entry] as { code?: unknown };
    if (value && typeof value === 'object' && typeof value.code === 'string') codes.add(value.code);
    for (const part of partsOf(value)) codes.add(part.answer.code);
  }
  return codes;
}

/** error_code_documented with the profile's codes accepted besides the register's. */
function codesWithProfile(profile: ServerProfile): Check {
  const codes = profileCodes(profile);
  return {
    ...errorCodeDocumented,
    description: `${errorCodeDocumented.description}, or one the profile declares`,
    judge: (exchange, context) => {
      const code = (exchange.response?.json as { code?: unknown } | undefined)?.code;
      if (typeof code === 'string' && codes.has(code)) return pass;
      return errorCodeDocumented.judge(exchange, context);
    },
  };
}

/**
 * The checks of a run under `profile`: one required check per declared entry added, the
 * advisory checks of the declared points taken out, error_code_documented widened. The proxy
 * (`entryChecks: false`) holds the entries itself, on each request's own situation (A-68).
 */
export function checksWithProfile(
  checks: readonly Check[],
  profile: ServerProfile,
  options: { readonly entryChecks?: boolean } = {},
): Check[] {
  const replaced = new Set([...profile.declared].flatMap((entry) => givesWay[entry] ?? []));
  const kept = checks
    .filter((check) => !replaced.has(check.name))
    .map((check) => (check.name === errorCodeDocumented.name ? codesWithProfile(profile) : check))
    .map((check) => withDeclaredBodyLimits(check, profile));
  if (options.entryChecks === false) return kept;
  return [...kept, ...[...profile.declared].map((entry) => entryCheck(entry, profile))];
}
