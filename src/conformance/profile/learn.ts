/**
 * @module conformance/profile/learn
 * `--write-profile FILE`: each entry is learnt from what the run's answers showed of it
 * (observe.ts), written with a comment saying what was seen, and left out when nothing showed
 * it (never guessed). An entry answered two ways (the same situation, two answers) is left out
 * too, and reported as a disagreement with each answer and how often it came.
 *
 * A server's answers are untrusted: an entry `profile --check` would refuse (a code with a
 * control character, a health body too deep or too large for the mock) is not learnt, and
 * neither is one holding a credential of the run; each is named with the reason instead
 * (docs/reliability.md, "Profiles"). What was seen is scrubbed before it is written.
 */
import { type EntryName, entryNames, entryTable, type ProfileEntries, type StatusRule, unprintable } from '../../profile/entries.js';
import { entryProblem } from '../../profile/profile.js';
import type { Exchange } from '../exchange.js';
import { learnMethods, learntByMethods } from './learn-methods.js';
import { decideWithParts } from './learn-parts.js';
import { credentialsNotLearnt } from './learning/credentials.js';
import { type Condition, type Observation, observe } from './observe.js';

/**
 * Several answers to the same requests: the entry, which requests (an operation, a condition),
 * and each answer with how often it came. Answers that differ by operation or by condition are
 * no disagreement: they are learnt as the entry's parts (entry-parts.ts).
 */
export interface Disagreement {
  readonly entry: EntryName;
  /** The requests answered several ways, e.g. `createEvaluation, condition minLength`; absent: every request of the entry. */
  readonly at?: string;
  readonly answers: readonly { readonly value: string; readonly count: number; readonly seen: string }[];
}

/** An entry seen but not written, and why (over a bound, or holding a credential). */
export interface NotLearnt {
  readonly entry: EntryName;
  readonly reason: string;
}

/** The longest an answer is quoted in a disagreement (a health body may be hundreds of kB). */
const maxQuoted = 200;

/** Text a server sent, as one printable line (it reaches stderr and the file's comments). */
function printable(text: string): string {
  return text.replace(new RegExp(unprintable.source, 'gu'), '\uFFFD');
}

function quotedValue(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > maxQuoted ? `${text.slice(0, maxQuoted - 1).replace(/[\uD800-\uDBFF]$/, '')}…` : text;
}

/** Whether `scrub` changes any string or key of `value` (an entry's value, already held to its bounds). */
function holdsSecret(value: unknown, scrub: (text: string) => string): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item === 'string') {
      if (scrub(item) !== item) return true;
    } else if (item && typeof item === 'object')
      for (const [key, inner] of Object.entries(item)) {
        if (!Array.isArray(item) && scrub(key) !== key) return true;
        stack.push(inner);
      }
  }
  return false;
}

export interface LearntProfile {
  readonly entries: ProfileEntries;
  /** Per entry, what was seen (the first few answers, counted). */
  readonly comments: { [Name in EntryName]?: string[] };
  readonly disagreements: readonly Disagreement[];
  /** Entries no answer of the run showed. */
  readonly notObserved: readonly EntryName[];
  /** Entries seen but left out: over a bound of the profile, or holding a credential. */
  readonly notLearnt: readonly NotLearnt[];
  /**
   * What the run saw that format 2 cannot declare (observe.ts `Condition`, an entry's answers
   * split in a way no part can say), each a line saying what the server answered: learnt into
   * no entry, never into a neighbour's. The file ends with them.
   */
  readonly notExpressible: readonly string[];
}

/** What the file says of each condition format 2 cannot declare, and what the mock does instead (none today). */
const conditionMeaning: Readonly<Record<Condition, string>> = {};

interface Seen {
  readonly value: unknown;
  count: number;
  readonly seen: string;
  /** Where the answer came (error entries): the operation and the condition of the request. */
  readonly operation?: string;
  readonly condition?: string;
}

const stateRank: Readonly<Record<string, number>> = { QUEUED: 0, RUNNING: 1, COMPLETE: 2, FAILED: 3 };

/** Job facts, learnt part by part (a COMPLETE and a FAILED job each show one part). */
const partwise = new Set<string>(['A-3.timeline', 'A-4.evaluation', 'A-4.limitations']);

/** The one status an entry can have, when the contract leaves it only one. */
function onlyStatus(entry: EntryName): number | undefined {
  const rule = (entryTable[entry] as { statuses?: StatusRule }).statuses;
  return rule && Array.isArray(rule.allowed) && rule.allowed.length === 1 ? rule.allowed[0] : undefined;
}

export class ProfileLearner {
  /** Per entry and part (a timeline's first status and states are learnt apart), the distinct values seen. */
  private readonly seen = new Map<string, Map<string, Seen>>();

  /** Learns from one exchange (give it every exchange of the run, through onExchange). */
  record(exchange: Exchange): void {
    for (const observation of observe(exchange)) this.add(observation);
  }

  private add(observation: Observation): void {
    if (observation.use === 'hold') return;
    const parts =
      observation.value === 'anonymous'
        ? [['', observation.value] as const]
        : Object.entries(observation.value).map(([key, value]) => [key, value] as const);
    // Error answers are one value (status, code and headers together); job facts are learnt part by part.
    const together = !partwise.has(observation.entry);
    const groups = together ? [['', observation.value] as const] : parts;
    const where = together
      ? {
          ...(observation.operation ? { operation: observation.operation } : {}),
          ...(observation.condition ? { condition: observation.condition } : {}),
        }
      : {};
    for (const [part, value] of groups) {
      const key = `${observation.entry}\n${part}`;
      const values = this.seen.get(key) ?? new Map<string, Seen>();
      this.seen.set(key, values);
      const id = JSON.stringify([value, where.operation, where.condition]);
      const kept = values.get(id);
      if (kept) kept.count += 1;
      // Bounded: at most a few answers for each operation and condition an entry knows.
      else if (values.size < 64) values.set(id, { value, count: 1, seen: observation.seen, ...where });
    }
  }

  private values(entry: EntryName | Condition, part = ''): Seen[] {
    return [...(this.seen.get(`${entry}\n${part}`)?.values() ?? [])];
  }

  /**
   * The entries learnt. `caller` is the run's first caller: the one header its --header gave
   * and the scheme its value starts with (never the value itself).
   */
  result(options: { caller?: { header: string; scheme: string }; scrub?: (text: string) => string } = {}): LearntProfile {
    const scrubbing = options.scrub ?? ((text: string) => text);
    const scrub = (text: string) => printable(scrubbing(text));
    const entries: Record<string, unknown> = {};
    const comments: Record<string, string[]> = {};
    const disagreements: Disagreement[] = [];
    const describe = (values: Seen[]) => values.slice(0, 3).map((value) => `seen ${value.count}×: ${value.seen}`);
    const decide = (entry: EntryName, values: Seen[], build: (value: unknown) => unknown) => {
      if (values.length === 0) return;
      if (values.length > 1) {
        disagreements.push({
          entry,
          answers: values.map((value) => ({ value: scrub(quotedValue(value.value)), count: value.count, seen: scrub(value.seen) })),
        });
        return;
      }
      entries[entry] = build(values[0]!.value);
      comments[entry] = describe(values);
    };
    const notLearntHere: NotLearnt[] = [];
    const splitsNotExpressible: string[] = [];
    for (const entry of entryNames) {
      if (partwise.has(entry) || entry === 'A-10.caller' || learntByMethods.has(entry)) continue;
      const values = this.values(entry);
      if (!values.some((value) => value.operation !== undefined || value.condition !== undefined)) {
        decide(entry, this.errorValues(values), (value) => this.completed(entry, value));
        continue;
      }
      const decided = decideWithParts(entry, values);
      if (decided.kind === 'learnt') {
        entries[entry] = this.completed(entry, decided.value);
        comments[entry] = decided.comments;
      } else if (decided.kind === 'disagreement') disagreements.push(decided.disagreement);
      else {
        notLearntHere.push({ entry, reason: decided.reason });
        if (decided.notExpressible) splitsNotExpressible.push(scrub(decided.notExpressible));
      }
    }
    this.learnTimeline(entries, comments, disagreements);
    this.learnPresence('A-4.evaluation', { entries, comments, disagreements });
    this.learnPresence('A-4.limitations', { entries, comments, disagreements });
    if (options.caller && entries['A-10.without-credentials'] !== undefined) {
      entries['A-10.caller'] = options.caller;
      comments['A-10.caller'] = [`the run's callers were named by --header ${options.caller.header} (values not shown)`];
    }
    const methodsNotLearnt = learnMethods({ values: (entry) => this.values(entry), entries, comments });
    const notLearnt = [
      ...notLearntHere.map((item) => ({ ...item, reason: scrub(item.reason) })),
      ...this.refuseUnwritable(entries, comments, { scrubbing, scrub }),
      ...methodsNotLearnt.map((item) => ({ ...item, reason: scrub(item.reason) })),
      ...credentialsNotLearnt(options.caller, entries),
    ];
    const notObserved = entryNames.filter(
      (entry) =>
        entries[entry] === undefined &&
        !disagreements.some((item) => item.entry === entry) &&
        !notLearnt.some((item) => item.entry === entry),
    );
    const notExpressible = [
      ...(Object.keys(conditionMeaning) as Condition[]).flatMap((condition) => {
        const values = this.values(condition);
        if (values.length === 0) return [];
        const answers = values.map((value) => `${scrub(value.seen)} (×${value.count})`).join('; ');
        return [`${conditionMeaning[condition]}; the server answered: ${answers}`];
      }),
      ...splitsNotExpressible,
    ];
    return {
      notExpressible,
      entries: entries as ProfileEntries,
      comments: Object.fromEntries(Object.entries(comments).map(([entry, lines]) => [entry, lines.map(scrub)])),
      disagreements: disagreements.map((item) => ({
        ...item,
        answers: item.answers.map((answer) => ({ ...answer, value: scrub(answer.value), seen: scrub(answer.seen) })),
      })),
      notObserved,
      notLearnt,
    };
  }

  /**
   * Takes out each entry `profile --check` would refuse, or that holds a credential of the run,
   * and says why: the file written is always one the mock and the runner can read.
   */
  private refuseUnwritable(
    entries: Record<string, unknown>,
    comments: Record<string, string[]>,
    text: { readonly scrubbing: (text: string) => string; readonly scrub: (text: string) => string },
  ): NotLearnt[] {
    const { scrubbing, scrub } = text;
    const refused: NotLearnt[] = [];
    for (const entry of entryNames) {
      const value = entries[entry];
      if (value === undefined) continue;
      const problem = entryProblem(entry, value);
      const reason = problem
        ? `the answer is not one a profile may hold: ${problem}`
        : holdsSecret(value, scrubbing)
          ? 'the answer holds a credential of the run'
          : undefined;
      if (reason === undefined) continue;
      refused.push({ entry, reason: scrub(`${reason} (${comments[entry]?.[0] ?? 'seen'})`) });
      delete entries[entry];
      delete comments[entry];
    }
    return refused;
  }

  /** An error entry's answers, those without a status (an operation with no 413) merged into those with one. */
  private errorValues(values: Seen[]): Seen[] {
    const withStatus = values.filter(
      (value) => typeof value.value !== 'object' || (value.value as { status?: unknown }).status !== undefined,
    );
    const without = values.filter((value) => !withStatus.includes(value));
    const merged = new Map<string, Seen>();
    for (const value of withStatus) merged.set(JSON.stringify(value.value), value);
    for (const value of without) {
      const match = withStatus.find(
        (candidate) => (candidate.value as { code?: unknown }).code === (value.value as { code?: unknown }).code,
      );
      if (match) match.count += value.count;
      else merged.set(JSON.stringify(value.value), value);
    }
    return [...merged.values()];
  }

  /** An error entry's value, with the status the contract leaves it when only codes were seen. */
  private completed(entry: EntryName, value: unknown): unknown {
    if (value === 'anonymous' || typeof value !== 'object' || value === null) return value;
    const status = (value as { status?: number }).status ?? onlyStatus(entry);
    return status === undefined ? value : { status, ...value };
  }

  private learnTimeline(entries: Record<string, unknown>, comments: Record<string, string[]>, disagreements: Disagreement[]): void {
    const firsts = this.values('A-3.timeline', 'first');
    const states = this.values('A-3.timeline', 'state');
    if (firsts.length === 0 || !states.some((state) => state.value === 'COMPLETE' || state.value === 'FAILED')) return;
    if (firsts.length > 1) {
      disagreements.push({
        entry: 'A-3.timeline',
        answers: firsts.map((value) => ({ value: `first ${String(value.value)}`, count: value.count, seen: value.seen })),
      });
      return;
    }
    const first = firsts[0]!.value as string;
    const through = [...new Set(states.map((state) => state.value as string))]
      .filter((state) => stateRank[state] !== undefined && stateRank[state]! >= stateRank[first]!)
      .sort((a, b) => stateRank[a]! - stateRank[b]!);
    if (!through.includes(first)) through.unshift(first);
    entries['A-3.timeline'] = { first, through };
    comments['A-3.timeline'] = [
      `created as ${first}: ${firsts[0]!.seen}`,
      `states seen: ${through.join(', ')} (a state a job passes too quickly to be read is not seen)`,
    ];
  }

  /** Whether a COMPLETE and a FAILED job carry a property (A-4.evaluation, A-4.limitations), part by part. */
  private learnPresence(
    entry: 'A-4.evaluation' | 'A-4.limitations',
    learnt: { entries: Record<string, unknown>; comments: Record<string, string[]>; disagreements: Disagreement[] },
  ): void {
    const { entries, comments, disagreements } = learnt;
    const property = entry === 'A-4.evaluation' ? 'evaluation' : 'limitations';
    const value: Record<string, string> = {};
    const lines: string[] = [];
    for (const part of ['complete', 'failed'] as const) {
      const values = this.values(entry, part);
      if (values.length > 1) {
        disagreements.push({
          entry,
          answers: values.map((seen) => ({ value: `${part}: ${String(seen.value)}`, count: seen.count, seen: seen.seen })),
        });
        return;
      }
      if (values.length === 1) {
        value[part] = values[0]!.value as string;
        lines.push(
          `${part === 'complete' ? 'COMPLETE' : 'FAILED'} job, ${property} ${values[0]!.value} (seen ${values[0]!.count}×: ${values[0]!.seen})`,
        );
      }
    }
    if (Object.keys(value).length === 0) return;
    entries[entry] = value;
    comments[entry] = lines;
  }
}
