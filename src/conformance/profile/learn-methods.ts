/**
 * @module conformance/profile/learn-methods
 * `--write-profile` for format 2's method, strictness and order entries (observe-methods.ts
 * says what each answer shows). An entry is written when its answers agree; otherwise it is
 * "not learnt", with why. The order (A-7.precedence) is learnt from the pairs of problems:
 * each answer is matched to the entries already learnt for each problem alone, and the pairs
 * that tell which came first are put in one order, the mock's order breaking ties.
 */
import type { EntryName } from '../../profile/entries.js';
import { type AnswerPart, answerFor } from '../../profile/entry-parts.js';
import { defaultMethodEntries, type ProblemName } from '../../profile/methods-vocabulary.js';
import { oversizedBytes } from './learning/precedence.js';

/** The entries learnt here, not by the learner's generic reading of error answers. */
export const learntByMethods: ReadonlySet<EntryName> = new Set([
  'A-20.options',
  'A-20.head',
  'A-20.allow',
  'A-21.duplicate-members',
  'A-21.charset',
  'A-16.non-ascii-key',
  'A-7.precedence',
]);

/** One distinct answer of an entry, with how often it came and a line of what was seen. */
export interface SeenValue {
  readonly value: unknown;
  readonly count: number;
  readonly seen: string;
}

/** The entry each problem of a request is answered by, alone. */
export const problemEntry: Readonly<Record<ProblemName, EntryName>> = {
  'media-type': 'A-21.media-type',
  'body-too-large': 'A-13.body-too-large',
  'malformed-json': 'A-21.malformed-json',
  'not-an-object': 'A-21.not-an-object',
  'missing-key': 'A-16.missing-key',
  'over-maximum': 'A-2.over-maximum',
  'invalid-request': 'A-7.invalid-request',
};

type Record_ = Record<string, unknown>;

function line(value: SeenValue): string {
  return `seen ${value.count}×: ${value.seen}`;
}

function twoWays(values: readonly SeenValue[]): string {
  return `answered ${values.length} ways: ${values
    .slice(0, 3)
    .map((value) => value.seen)
    .join('; ')}`;
}

/** A strictness probe's answer as the entry's value: `accepted`, or the refusal's status and code. */
function acceptedOr(value: Record_, accepted: string): unknown {
  return value.accepted ? accepted : { status: value.status, code: value.code };
}

/**
 * Learns the entries of `learntByMethods` into `entries` and `comments`; returns the entries
 * seen but not learnt, with why. `values(entry)` gives an entry's distinct answers.
 */
export function learnMethods(options: {
  values: (entry: EntryName) => readonly SeenValue[];
  entries: Record<string, unknown>;
  comments: Record<string, string[]>;
}): { entry: EntryName; reason: string }[] {
  const { values, entries, comments } = options;
  const notLearnt: { entry: EntryName; reason: string }[] = [];
  const single = (entry: EntryName, build: (value: Record_) => unknown) => {
    const seen = values(entry);
    if (seen.length === 0) return;
    const built = seen.map((value) => JSON.stringify(build(value.value as Record_)));
    if (new Set(built).size > 1) {
      notLearnt.push({ entry, reason: twoWays(seen) });
      return;
    }
    entries[entry] = build(seen[0]!.value as Record_);
    comments[entry] = seen.slice(0, 3).map(line);
  };
  single('A-20.options', (value) => (value.refused ? 'undeclared-method' : { status: value.status, allow: value.allow }));
  single('A-20.head', (value) => (value.likeGet ? 'like-get' : { status: value.status }));
  single('A-21.charset', (value) => acceptedOr(value, 'accepted'));
  single('A-16.non-ascii-key', (value) => acceptedOr(value, 'accepted'));
  learnAllow(values('A-20.allow'), { entries, comments, notLearnt });
  learnDuplicates(values('A-21.duplicate-members'), { entries, comments, notLearnt });
  learnPrecedence(values('A-7.precedence'), { entries, comments, notLearnt });
  return notLearnt;
}

interface Into {
  readonly entries: Record<string, unknown>;
  readonly comments: Record<string, string[]>;
  readonly notLearnt: { entry: EntryName; reason: string }[];
}

/** A-20.allow, part by part: HEAD from the lists of GET paths, OPTIONS from every list. */
function learnAllow(seen: readonly SeenValue[], into: Into): void {
  if (seen.length === 0) return;
  const adds: ('HEAD' | 'OPTIONS')[] = [];
  const lines: string[] = [];
  for (const [part, method] of [
    ['head', 'HEAD'],
    ['options', 'OPTIONS'],
  ] as const) {
    const told = seen.filter((value) => (value.value as Record_)[part] !== undefined);
    const answers = new Set(told.map((value) => (value.value as Record_)[part]));
    if (answers.size > 1) {
      into.notLearnt.push({ entry: 'A-20.allow', reason: `${method} is listed on some paths and not others: ${twoWays(told)}` });
      return;
    }
    const listed = told.length > 0 ? answers.has(true) : defaultMethodEntries['A-20.allow'].adds.includes(method);
    if (listed) adds.push(method);
    lines.push(
      told.length > 0
        ? `${method} ${listed ? 'listed' : 'not listed'} (${line(told[0]!)})`
        : `${method}: no list showed it; the mock's default kept`,
    );
  }
  into.entries['A-20.allow'] = { adds };
  into.comments['A-20.allow'] = lines;
}

/** A-21.duplicate-members from the two probes: the valid value first, then last. */
function learnDuplicates(seen: readonly SeenValue[], into: Into): void {
  if (seen.length === 0) return;
  const of = (variant: string) => seen.filter((value) => (value.value as Record_).variant === variant);
  const firstValid = of('first-valid');
  const lastValid = of('last-valid');
  if (firstValid.length !== 1 || lastValid.length !== 1) {
    into.notLearnt.push({ entry: 'A-21.duplicate-members', reason: `the two probes did not each get one answer: ${twoWays(seen)}` });
    return;
  }
  const first = firstValid[0]!.value as Record_;
  const last = lastValid[0]!.value as Record_;
  const value =
    first.accepted && !last.accepted
      ? 'first-wins'
      : last.accepted && !first.accepted
        ? 'last-wins'
        : !first.accepted && first.status === last.status && first.code === last.code
          ? { status: first.status, code: first.code }
          : undefined;
  if (value === undefined) {
    into.notLearnt.push({
      entry: 'A-21.duplicate-members',
      reason: `neither member read alone explains the answers (${firstValid[0]!.seen}; ${lastValid[0]!.seen})`,
    });
    return;
  }
  into.entries['A-21.duplicate-members'] = value;
  into.comments['A-21.duplicate-members'] = [line(firstValid[0]!), line(lastValid[0]!)];
}

/** The condition a problem of a pair is, as an entry's `conditions` part names it (precedence.ts builds each so). */
const problemCondition: Partial<Record<ProblemName, string>> = {
  'missing-key': 'required',
  'over-maximum': 'maxLength',
  'invalid-request': 'type',
};

/** Whether an answer is the one an error entry declares for `problem` on the answer's operation (status and code). */
function answers(problem: ProblemName, entry: unknown, value: Record_): boolean {
  if (!entry || typeof entry !== 'object') return false;
  const declared = answerFor(problemEntry[problem], entry as AnswerPart, {
    operation: typeof value.operation === 'string' ? value.operation : 'createEvaluation',
    condition: problemCondition[problem],
  });
  return declared.status === value.status && declared.code === value.code;
}

/** Which of a pair's problems an answer names, or why it tells neither; `entries` are the learnt ones. */
export function winnerOf(
  value: Record_,
  entries: Readonly<Record<string, unknown>>,
): { winner: ProblemName; loser: ProblemName } | { why: string } {
  const first = value.first as ProblemName;
  const second = value.second as ProblemName;
  const unknown = [first, second].filter((problem) => entries[problemEntry[problem]] === undefined);
  if (unknown.length > 0)
    return { why: `${unknown.map((problem) => problemEntry[problem]).join(' and ')} not learnt, so the answer cannot be matched` };
  const limit = (entries['A-13.body-too-large'] as { limitBytes?: number } | undefined)?.limitBytes;
  if (value.operation === 'verifyReport' && (first === 'body-too-large' || second === 'body-too-large'))
    return { why: 'verifyReport is asked no pair with an oversized body' };
  if ((first === 'body-too-large' || second === 'body-too-large') && limit !== undefined && limit >= oversizedBytes)
    return { why: `the body sent (${oversizedBytes} bytes) is within the learnt limit` };
  const byFirst = answers(first, entries[problemEntry[first]], value);
  const bySecond = answers(second, entries[problemEntry[second]], value);
  if (byFirst && bySecond)
    return { why: `both answer ${String(value.status)} ${String(value.code)}: the answer cannot tell which was judged` };
  if (!byFirst && !bySecond) return { why: `answered ${String(value.status)} ${String(value.code)}, which is neither's` };
  return byFirst ? { winner: first, loser: second } : { winner: second, loser: first };
}

/**
 * One order holding every pair learnt, as close to the mock's as they let it be: each winner
 * is moved just before the first problem it beat, until no pair is out of order. Undefined when
 * the pairs go round in a circle (no order holds them all).
 */
export function orderFrom(
  before: readonly (readonly [ProblemName, ProblemName])[],
  base: readonly ProblemName[],
): ProblemName[] | undefined {
  const order = [...base];
  // Each move puts a name earlier; pairs without a circle settle within a few rounds per name.
  for (let round = 0; round <= base.length * base.length; round += 1) {
    let moved = false;
    for (const [winner, loser] of before) {
      const at = order.indexOf(winner);
      const beaten = order.indexOf(loser);
      if (at < beaten) continue;
      order.splice(at, 1);
      order.splice(beaten, 0, winner);
      moved = true;
    }
    if (!moved) return order;
  }
  return undefined;
}

/** The pairs one operation's answers told: which problem was judged before which, and the lines saying so. */
function pairsTold(seen: readonly SeenValue[], entries: Readonly<Record<string, unknown>>) {
  const before: [ProblemName, ProblemName][] = [];
  const untold: string[] = [];
  // One line per problem that won a pair: what it was judged before, and one answer that showed it.
  const won = new Map<ProblemName, { losers: ProblemName[]; seen: string }>();
  for (const value of seen) {
    const told = winnerOf(value.value as Record_, entries);
    const pair = `${String((value.value as Record_).first)} + ${String((value.value as Record_).second)}`;
    if ('why' in told) untold.push(`${pair}: ${told.why} (${value.seen})`);
    else {
      before.push([told.winner, told.loser]);
      const entry = won.get(told.winner) ?? { losers: [], seen: value.seen };
      entry.losers.push(told.loser);
      won.set(told.winner, entry);
    }
  }
  const lines = [...won].map(([winner, { losers, seen: line }]) => `${winner} judged before ${losers.join(', ')} (e.g. ${line})`);
  return { before, untold, lines };
}

const operationOf = (value: SeenValue): string => {
  const operation = (value.value as Record_).operation;
  return typeof operation === 'string' ? operation : 'createEvaluation';
};

/**
 * A-7.precedence: createEvaluation's pairs give the entry's order; verifyReport's give its own
 * order (`operations.verifyReport`), written only where it differs: the pairs it did not tell
 * keep the entry's order.
 */
function learnPrecedence(seen: readonly SeenValue[], into: Into): void {
  if (seen.length === 0) return;
  const create = pairsTold(
    seen.filter((value) => operationOf(value) === 'createEvaluation'),
    into.entries,
  );
  const verifySeen = seen.filter((value) => operationOf(value) === 'verifyReport');
  const verify = pairsTold(verifySeen, into.entries);
  if (create.before.length === 0 && verify.before.length === 0) {
    into.notLearnt.push({
      entry: 'A-7.precedence',
      reason: `no pair of problems told which is judged first: ${[...create.untold, ...verify.untold].slice(0, 4).join('; ')}`,
    });
    return;
  }
  const order = orderFrom(create.before, defaultMethodEntries['A-7.precedence'].order);
  if (!order) {
    into.notLearnt.push({ entry: 'A-7.precedence', reason: `the pairs judged first go round in a circle: ${create.lines.join('; ')}` });
    return;
  }
  const comments = [...create.lines, ...create.untold.map((text) => `not learnt: ${text}`)];
  let operations: { verifyReport: { order: ProblemName[] } } | undefined;
  if (verify.before.length > 0) {
    const verifyOrder = orderFrom(verify.before, order);
    if (!verifyOrder)
      comments.push(`verifyReport not learnt (it keeps the entry's order): its pairs go round in a circle: ${verify.lines.join('; ')}`);
    else if (verifyOrder.some((name, index) => name !== order[index])) operations = { verifyReport: { order: verifyOrder } };
  }
  comments.push(...verify.lines.map((text) => `verifyReport: ${text}`), ...verify.untold.map((text) => `verifyReport not learnt: ${text}`));
  into.entries['A-7.precedence'] = { order, ...(operations ? { operations } : {}) };
  into.comments['A-7.precedence'] = [...comments, 'pairs not asked keep the mock’s order'];
}
